//! Several digests of one input from one read (`mhash -a md5,sha256`).
//!
//! [`Multi`] feeds every hasher from the same buffer on the calling
//! thread. [`feed`] runs each hasher on its own thread instead: the
//! calling thread reads into a bounded ring of [`SLOTS`] shared, read-only
//! buffers and hands each filled slot to every hasher thread; a slot is
//! read into again once every thread has hashed it. No copy is made per
//! algorithm, memory is `SLOTS` x the read size whatever the input size,
//! and the slowest digest sets the pace.

use crate::algo::{Capability, Hasher};
use std::io::{self, Read};
use std::sync::Arc;
use std::sync::mpsc;

/// Buffers in the ring: the reader may be this many reads ahead of the
/// slowest hasher.
pub const SLOTS: usize = 4;

/// Several hashers fed the same bytes; `finalize` gives their digests
/// concatenated, in order.
pub struct Multi(pub Vec<Box<dyn Hasher>>);

impl Hasher for Multi {
    fn update(&mut self, data: &[u8]) {
        for h in &mut self.0 {
            h.update(data);
        }
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let mut out = Vec::new();
        for h in self.0 {
            out.extend_from_slice(&h.finalize());
        }
        out
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Multi(&mut self.0)
    }
}

/// Reads `reader` to its end once, hashing every byte with each of
/// `hashers` on a thread of its own while the calling thread reads ahead
/// into the ring. A hasher that can use several threads itself
/// ([`Capability::Tree`], BLAKE3) gets each slot through
/// [`crate::algo::Tree::update_parallel`]. `first` holds bytes already read (they are
/// hashed first). Adds the bytes read to `total`. Stops reading once it
/// has read `limit` bytes or more (besides `first`; `u64::MAX`: none);
/// returns whether it met the end of the input, every byte read being
/// hashed either way.
///
/// # Errors
/// The first read error other than `Interrupted`; the hashers then hold
/// the bytes before it. If a thread cannot be started, the hashers are
/// fed on the calling thread instead.
pub fn feed(
    reader: &mut dyn Read,
    hashers: Vec<&mut dyn Hasher>,
    slot_len: usize,
    first: &[u8],
    total: &mut u64,
    limit: u64,
) -> io::Result<bool> {
    let n = hashers.len();
    let mut ended = false;
    let mut read = 0u64;
    let mut slots: Vec<Arc<Vec<u8>>> = (0..SLOTS).map(|_| Arc::new(vec![0u8; slot_len])).collect();
    // How many hasher threads still hold each slot.
    let mut pending = [0usize; SLOTS];
    let (done_tx, done_rx) = mpsc::channel::<usize>();
    let mut result = Ok(());
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(n);
        let mut givers = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        // Start every thread before handing out any hasher: if one cannot
        // start, all hashers are still here to be fed on this thread.
        for _ in 0..n {
            let (tx, rx) = mpsc::sync_channel::<(usize, Arc<Vec<u8>>, usize)>(SLOTS);
            let (give, take) = mpsc::channel::<&mut dyn Hasher>();
            let done = done_tx.clone();
            let spawned = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(scope, move || {
                    let Ok(h) = take.recv() else { return };
                    let tree = matches!(h.capability(), Capability::Tree(_));
                    while let Ok((i, buf, len)) = rx.recv() {
                        match h.capability() {
                            Capability::Tree(t) if tree => t.update_parallel(&buf[..len]),
                            _ => h.update(&buf[..len]),
                        }
                        drop(buf);
                        let _ = done.send(i);
                    }
                });
            match spawned {
                Ok(handle) => {
                    senders.push(tx);
                    givers.push(give);
                    handles.push(handle);
                }
                Err(_) => break,
            }
        }
        if handles.len() < n {
            drop(givers);
            drop(senders);
            for h in handles {
                let _ = h.join();
            }
            let mut multi = Borrowed(hashers);
            multi.update(first);
            let mut buf = vec![0u8; slot_len];
            result = super::feed_then(reader, &mut multi, &mut buf, total, &mut || {}).map(|_| ());
            ended = true;
            return;
        }
        for (give, h) in givers.iter().zip(hashers) {
            let _ = give.send(h);
        }
        let send = |i: usize, slots: &Vec<Arc<Vec<u8>>>, len: usize, pending: &mut [usize; SLOTS]| {
            for tx in &senders {
                pending[i] += 1;
                if tx.send((i, Arc::clone(&slots[i]), len)).is_err() {
                    pending[i] -= 1;
                }
            }
        };
        let mut next = 0usize;
        let mut pieces = first.chunks(slot_len);
        loop {
            // Wait until every thread is done with the next slot.
            while pending[next] > 0 {
                match done_rx.recv() {
                    Ok(i) => pending[i] -= 1,
                    Err(_) => break,
                }
            }
            let Some(buf) = Arc::get_mut(&mut slots[next]) else {
                result = Err(io::Error::other("hashing thread still holds a buffer"));
                break;
            };
            let len = if let Some(p) = pieces.next() {
                buf[..p.len()].copy_from_slice(p);
                p.len()
            } else if read >= limit {
                break;
            } else {
                match super::read_retrying(reader, buf) {
                    Ok(0) => {
                        ended = true;
                        break;
                    }
                    Ok(len) => {
                        read += len as u64;
                        *total += len as u64;
                        crate::progress::note_bytes(len as u64);
                        len
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            };
            send(next, &slots, len, &mut pending);
            next = (next + 1) % SLOTS;
        }
        drop(senders);
        for h in handles {
            if let Err(p) = h.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
    result.map(|()| ended)
}

/// Borrowed hashers fed the same bytes (the fallback when no thread starts).
struct Borrowed<'a>(Vec<&'a mut dyn Hasher>);

impl Hasher for Borrowed<'_> {
    fn update(&mut self, data: &[u8]) {
        for h in &mut self.0 {
            h.update(data);
        }
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        Vec::new()
    }
}
