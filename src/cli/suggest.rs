//! "Did you mean" for the native face: the known names closest to what was
//! typed, by edit distance (the optimal string alignment distance: an
//! insertion, a deletion, a substitution or a swap of two neighbours each
//! cost 1, as git's `help.autocorrect` weighs a swap; clap suggests from a
//! similarity score instead).
//!
//! Under GNU names nothing here is used: their messages are GNU's words.

/// The optimal string alignment distance between `a` and `b`, compared
/// as ASCII case-blind bytes.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<u8> = a.bytes().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<u8> = b.bytes().map(|c| c.to_ascii_lowercase()).collect();
    // d[i][j]: the distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The candidates closest to `typed`, in the order given, where close
/// enough to be what was meant: at most 2 edits, and at most one edit in
/// three characters of the longer word (`sha265` -> `sha256`, `md4` ->
/// `md5`, `chek` -> `check`; `foo` suggests nothing). At most three.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut best: Vec<&'a str> = Vec::new();
    let mut best_d = usize::MAX;
    for c in candidates {
        let d = edit_distance(typed, c);
        let longer = typed.len().max(c.len());
        if d == 0 || d > 2 || d * 3 > longer {
            continue;
        }
        if d < best_d {
            best_d = d;
            best.clear();
        }
        if d == best_d && !best.contains(&c) {
            best.push(c);
        }
    }
    best.truncate(3);
    best
}

/// `‘a’`, `‘a’ or ‘b’`, `‘a’, ‘b’ or ‘c’`: `names` each put through
/// `quote`, joined for a "did you mean" question.
pub fn one_of(names: &[&str], quote: impl Fn(&str) -> String) -> String {
    let q: Vec<String> = names.iter().map(|n| quote(n)).collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_a_swap_as_one_edit() {
        assert_eq!(edit_distance("sha265", "sha256"), 1);
        assert_eq!(edit_distance("chek", "check"), 1);
        assert_eq!(edit_distance("SHA256", "sha256"), 0);
        assert_eq!(edit_distance("", "md5"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_keeps_only_near_names() {
        let algos = [
            "md5", "sha1", "sha256", "sha512", "blake2b", "blake3", "crc32c", "crc32b",
        ];
        assert_eq!(closest("sha265", algos), ["sha256"]);
        assert_eq!(closest("md4", algos), ["md5"]);
        assert_eq!(closest("blake", algos), ["blake3"]);
        assert_eq!(closest("crc32", algos), ["crc32c", "crc32b"]);
        assert!(closest("foo", algos).is_empty());
        assert!(
            closest("sha256", algos).is_empty(),
            "an exact name is no suggestion"
        );
        assert_eq!(one_of(&["a", "b", "c"], |s| format!("'{s}'")), "'a', 'b' or 'c'");
    }
}
