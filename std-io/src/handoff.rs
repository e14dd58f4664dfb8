//! A bounded, ordered hand-off of decoded bytes from one thread to another (`spec/mpk.md`
//! §6.2): the decoding thread appends bytes to a buffer from a fixed pool and hands full
//! buffers over; the consuming thread processes them in order and gives them back. Memory
//! is the pool, whatever the stream's length, and the decoding thread waits when every
//! buffer is in use. In the same order, the decoding thread gives back each input buffer
//! it is done with, and ends the stream with one final value (the decoder's outcome).
//! Input buffers go back in bursts, behind the next full buffer: the consuming thread
//! sleeps between items, and each wake costs the decoding thread, which sets the pace, a
//! system call (one per 64 KiB chunk cost 4–8 % of the time of `modelgate check` on a
//! 254 MiB package).

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// What the consuming side receives, in the order the decoding side produced it.
pub enum Item<T> {
    /// Decoded bytes (never empty).
    Data(Vec<u8>),
    /// An input buffer the decoding side is done with, given back: its decoded bytes
    /// were handed over before, or are still buffered and follow.
    Consumed(Vec<u8>),
    /// The end of the stream: nothing follows.
    End(T),
}

/// Items that may wait in the queue: every buffer of the pool and some input buffers.
fn queue_len(buffers: usize) -> usize {
    buffers.saturating_add(64)
}

/// Input buffers [`Producer::consumed`] holds back at most.
pub const HOLD: usize = 8;

/// The consuming side went away (it stopped early): the decoding side should stop too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed;

/// The decoding side.
pub struct Producer<T> {
    data: SyncSender<Item<T>>,
    /// Input buffers given back but not handed over yet (see [`Producer::consumed`]).
    held: Vec<Vec<u8>>,
    free: Receiver<Vec<u8>>,
    buf: Option<Vec<u8>>,
    size: usize,
    /// Buffers not made yet: the pool grows to its size only when the stream needs it.
    unmade: usize,
}

/// The consuming side.
pub struct Consumer<T> {
    data: Receiver<Item<T>>,
    free: SyncSender<Vec<u8>>,
}

/// A hand-off with a pool of `buffers` buffers of `size` bytes each.
pub fn channel<T>(buffers: usize, size: usize) -> (Producer<T>, Consumer<T>) {
    let buffers = buffers.max(1);
    let (data_tx, data_rx) = sync_channel(queue_len(buffers));
    let (free_tx, free_rx) = sync_channel(buffers);
    let producer = Producer {
        data: data_tx,
        held: Vec::with_capacity(HOLD),
        free: free_rx,
        buf: None,
        size: size.max(1),
        unmade: buffers,
    };
    (
        producer,
        Consumer {
            data: data_rx,
            free: free_tx,
        },
    )
}

impl<T> Producer<T> {
    /// Gives an input buffer back (see [`Item::Consumed`]). It is held until the next full
    /// buffer is handed over, [`HOLD`] are held, or [`Producer::release`]: waking the
    /// consuming side, which waits most of the time, costs this side a system call, so
    /// items go over in bursts.
    pub fn consumed(&mut self, input: Vec<u8>) -> Result<(), Closed> {
        self.held.push(input);
        if self.held.len() >= HOLD {
            return self.release();
        }
        Ok(())
    }

    /// Hands over every input buffer held back by [`Producer::consumed`]. The decoding side
    /// calls it before it waits for more input, which the consuming side reads into them.
    pub fn release(&mut self) -> Result<(), Closed> {
        let data = &self.data;
        self.held
            .drain(..)
            .try_for_each(|input| data.send(Item::Consumed(input)).map_err(|_| Closed))
    }

    /// Appends `bytes`, handing each buffer over as it fills; waits for a free buffer
    /// when all are in use.
    pub fn write(&mut self, mut bytes: &[u8]) -> Result<(), Closed> {
        while !bytes.is_empty() {
            let buf = match self.buf.take() {
                Some(buf) => self.buf.insert(buf),
                None => {
                    let fresh = self.free_buffer()?;
                    self.buf.insert(fresh)
                }
            };
            let take = self.size.saturating_sub(buf.len()).min(bytes.len());
            let (now, later) = bytes.split_at(take);
            buf.extend_from_slice(now);
            bytes = later;
            if buf.len() >= self.size {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// A buffer given back, else a new one while the pool is not full, else the next one
    /// given back.
    fn free_buffer(&mut self) -> Result<Vec<u8>, Closed> {
        if let Ok(buf) = self.free.try_recv() {
            return Ok(buf);
        }
        if self.unmade > 0 {
            self.unmade -= 1;
            return Ok(Vec::with_capacity(self.size));
        }
        self.free.recv().map_err(|_| Closed)
    }

    /// Hands over the bytes buffered so far, if any.
    pub fn flush(&mut self) -> Result<(), Closed> {
        match self.buf.take() {
            Some(buf) if !buf.is_empty() => {
                self.data.send(Item::Data(buf)).map_err(|_| Closed)?;
                self.release()
            }
            Some(buf) => {
                self.buf = Some(buf);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Hands over the bytes buffered so far, then `outcome`, which ends the stream.
    pub fn end(mut self, outcome: T) -> Result<(), Closed> {
        self.flush()?;
        self.release()?;
        self.data.send(Item::End(outcome)).map_err(|_| Closed)
    }
}

impl<T> Consumer<T> {
    /// The next item, waiting for it; `None` when the decoding side went away without
    /// ending the stream.
    pub fn next(&self) -> Option<Item<T>> {
        self.data.recv().ok()
    }

    /// Gives a buffer of [`Item::Data`] back to the pool.
    pub fn recycle(&self, mut buf: Vec<u8>) {
        buf.clear();
        // Fails only when the decoding side is gone, and then nobody needs the buffer.
        let _ = self.free.try_send(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_arrive_in_order_in_full_buffers_then_the_end() {
        let (mut p, c) = channel::<&str>(2, 4);
        let writer = std::thread::spawn(move || {
            for (i, piece) in [&b"abc"[..], b"defgh", b"", b"ij"].into_iter().enumerate() {
                p.write(piece).unwrap();
                p.consumed(vec![0; i]).unwrap();
            }
            p.end("done").unwrap();
        });
        let mut got = Vec::new();
        let mut items = Vec::new();
        let end = loop {
            match c.next().unwrap() {
                Item::Data(buf) => {
                    items.push(format!("{}", buf.len()));
                    got.extend_from_slice(&buf);
                    c.recycle(buf);
                }
                Item::Consumed(v) => items.push(format!("c{}", v.len())),
                Item::End(v) => break v,
            }
        };
        writer.join().unwrap();
        assert_eq!(got, b"abcdefghij");
        // Given-back inputs follow the next full buffer, or the end's last one.
        assert_eq!(items, ["4", "c0", "4", "2", "c1", "c2", "c3"]);
        assert_eq!(end, "done");
    }

    /// What is waiting for the consuming side right now, without waiting.
    fn pending(c: &Consumer<()>) -> Vec<String> {
        std::iter::from_fn(|| c.data.try_recv().ok())
            .map(|item| match item {
                Item::Data(buf) => format!("{}", buf.len()),
                Item::Consumed(v) => format!("c{}", v.len()),
                Item::End(()) => String::from("end"),
            })
            .collect()
    }

    #[test]
    fn given_back_inputs_are_held_until_a_buffer_fills_hold_are_held_or_they_are_released() {
        let (mut p, c) = channel::<()>(2, 4);
        p.write(b"ab").unwrap();
        p.consumed(vec![0; 1]).unwrap();
        assert!(pending(&c).is_empty());
        p.release().unwrap();
        assert_eq!(pending(&c), ["c1"]);
        for i in 0..HOLD {
            assert!(pending(&c).is_empty(), "after {i}");
            p.consumed(vec![0; 2]).unwrap();
        }
        assert_eq!(pending(&c), vec!["c2"; HOLD]);
        p.consumed(vec![0; 3]).unwrap();
        p.write(b"cd").unwrap();
        assert_eq!(pending(&c), ["4", "c3"]);
        p.consumed(vec![0; 4]).unwrap();
        p.end(()).unwrap();
        assert_eq!(pending(&c), ["c4", "end"]);
    }

    #[test]
    fn the_pool_bounds_what_is_in_flight_and_a_gone_consumer_stops_the_producer() {
        let (mut p, c) = channel::<()>(2, 1);
        // Two buffers fill without a consumer; the third write would wait, so drop first.
        p.write(b"ab").unwrap();
        drop(c);
        assert_eq!(p.write(b"c"), Err(Closed));
    }
}
