//! `event_send` and `event_read`: the two halves of `events`, timed apart
//! (issue 27: a send within 1.5× a `Vec::push`, a read within 2× a slice
//! walk), on 10,000 messages of one event type.
//!
//! - `event_send`: each run sends `n` messages, then lets them go. typed_ecs:
//!   `Events::send`, then its one cursor passes them without reading
//!   (`EventCursor::skip`) and tells the log (`update`), which drops them;
//!   bevy: `Messages::write`, then `update()` (its double buffer drops the
//!   messages of the run before); raw: `Vec::push`, then `clear()`.
//! - `event_read`: `n` messages were sent once, in setup; each run a
//!   new reader reads them all and sums a field. typed_ecs: a fresh
//!   `EventCursor` (a cursor new to a log reads every message kept); bevy:
//!   `Messages::get_cursor` and `read`; raw: a walk of the slice.

use std::hint::black_box;

use crate::scenarios::events::{hit, Hit};
use crate::{Check, Scenario};

fn check(total: f64, runs: u64) -> Check {
    vec![("sum", total), ("runs", runs as f64)]
}

/// What a read adds up.
fn amount(hit: &Hit) -> f32 {
    hit.amount + hit.target as f32 * 0.0
}

/// Sending, then letting go.
pub mod send {
    use super::*;
    use crate::Instance;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "event_send",
        what: "10,000 messages of one event type sent, then let go unread (a send's cost)",
        sizes: &[10_000],
        size_note: " messages",
        test_size: 100,
        fresh_state: false,
        impls: crate::impls![in send: typed_ecs, bevy, raw],
        notes: "typed_ecs: `Events::send`, then its one `EventCursor` skips them and tells \
                the log, which drops them; bevy: `Messages::write`, then `update`; raw: \
                `Vec::push`, then `clear`.",
    };

    pub mod typed_ecs {
        use super::*;
        use ::typed_ecs::{EventCursor, Events};

        pub struct State {
            events: Events<Hit>,
            cursor: EventCursor<Hit>,
            n: usize,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            let mut events = Events::new();
            let cursor = events.cursor();
            State {
                events,
                cursor,
                n,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for i in 0..self.n {
                    self.events.send(hit(i));
                }
                self.cursor.skip(&self.events);
                self.cursor.update(&mut self.events);
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(black_box(self.events.sent()) as f64, self.runs)
            }
        }
    }

    pub mod bevy {
        use super::*;
        use crate::scenarios::events::bevy::BevyHit;
        use ::bevy_ecs::message::Messages;

        pub struct State {
            messages: Messages<BevyHit>,
            n: usize,
            sent: u64,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            State {
                messages: Messages::default(),
                n,
                sent: 0,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for i in 0..self.n {
                    self.messages.write(BevyHit(hit(i)));
                }
                self.messages.update();
                self.sent += self.n as u64;
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(black_box(self.sent) as f64, self.runs)
            }
        }
    }

    pub mod raw {
        use super::*;

        pub struct State {
            queue: Vec<Hit>,
            n: usize,
            sent: u64,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            State {
                queue: Vec::new(),
                n,
                sent: 0,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                for i in 0..self.n {
                    self.queue.push(hit(i));
                }
                self.sent += black_box(self.queue.len()) as u64;
                self.queue.clear();
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.sent as f64, self.runs)
            }
        }
    }
}

/// Reading what was sent once.
pub mod read {
    use super::*;
    use crate::Instance;

    /// The scenario.
    pub const SCENARIO: Scenario = Scenario {
        name: "event_read",
        what: "10,000 messages of one event type read by a new reader (a read's cost)",
        sizes: &[10_000],
        size_note: " messages",
        test_size: 100,
        fresh_state: false,
        impls: crate::impls![in read: typed_ecs, bevy, raw],
        notes: "The messages are sent once, in setup. typed_ecs: a new `EventCursor` reads \
                them all; bevy: `Messages::get_cursor`, then `read`; raw: a walk of the slice.",
    };

    pub mod typed_ecs {
        use super::*;
        use ::typed_ecs::{EventCursor, Events};

        pub struct State {
            events: Events<Hit>,
            total: f64,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            let mut events = Events::new();
            events.send_batch((0..n).map(hit));
            State {
                events,
                total: 0.0,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let mut reader = EventCursor::default();
                let sum: f32 = reader.read(&self.events).map(amount).sum();
                self.total += f64::from(black_box(sum));
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.total, self.runs)
            }
        }
    }

    pub mod bevy {
        use super::*;
        use crate::scenarios::events::bevy::BevyHit;
        use ::bevy_ecs::message::Messages;

        pub struct State {
            messages: Messages<BevyHit>,
            total: f64,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            let mut messages = Messages::default();
            messages.write_batch((0..n).map(|i| BevyHit(hit(i))));
            State {
                messages,
                total: 0.0,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let mut reader = self.messages.get_cursor();
                let sum: f32 = reader.read(&self.messages).map(|h| amount(&h.0)).sum();
                self.total += f64::from(black_box(sum));
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.total, self.runs)
            }
        }
    }

    pub mod raw {
        use super::*;

        pub struct State {
            queue: Vec<Hit>,
            total: f64,
            runs: u64,
        }

        pub fn setup(n: usize) -> State {
            State {
                queue: (0..n).map(hit).collect(),
                total: 0.0,
                runs: 0,
            }
        }

        impl Instance for State {
            fn run(&mut self) {
                let sum: f32 = self.queue.iter().map(amount).sum();
                self.total += f64::from(black_box(sum));
                self.runs += 1;
            }
            fn check(&self) -> Check {
                check(self.total, self.runs)
            }
        }
    }
}
