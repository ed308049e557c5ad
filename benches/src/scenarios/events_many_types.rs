//! `events_many_types`: bevy's second event benchmark shape (issue 27):
//! 100 event types, each run sending 1 to 5 messages of each (type `k`
//! sends `k % 5 + 1`), then one reader per type reading them. What it
//! times is the per-type cost (a field and a cursor each), not the
//! per-message cost of `events`.
//!
//! - typed_ecs: a world declaring the 100 events; `world.send(..)`, then
//!   each type's `EventCursor::read_mut`.
//! - bevy: 100 `Messages` resources; `world.write_message(..)`, then each
//!   type's `MessageCursor::read` and `update()`.
//! - raw: 100 `Vec`s, pushed, walked, cleared.
//!
//! Both are written once, in `implementations!`, over the list of the
//! types `Ev<0>` … `Ev<99>` at its call.

use std::hint::black_box;

use crate::{Check, Instance, Scenario};

/// The scenario.
pub const SCENARIO: Scenario = Scenario {
    name: "events_many_types",
    what: "100 event types, 1 to 5 messages of each sent, then read by one reader each \
           (bevy's event benchmark shape)",
    sizes: &[100],
    size_note: " types",
    test_size: 100,
    fresh_state: false,
    impls: crate::impls![typed_ecs, bevy, raw],
    notes: "The size is fixed at 100 types (one field and one cursor each); every run sends \
            `k % 5 + 1` messages of type `k` (300 in all) and reads each once.",
};

/// A message of the event type `K`.
#[derive(Clone, Copy, Debug)]
pub struct Ev<const K: usize>(u32);

impl<const K: usize> ::bevy_ecs::message::Message for Ev<K> {}

/// How many messages of type `K` a run sends.
const fn count(k: usize) -> u32 {
    (k % 5) as u32 + 1
}

fn check(total: u64, runs: u64) -> Check {
    vec![("read sum", total as f64), ("runs", runs as f64)]
}

/// The typed_ecs and bevy implementations, over the list of `(event
/// field, cursor field, K)` for every type `Ev<K>`: written once, expanded
/// for the 100 types.
macro_rules! implementations {
    ($( ($ev:ident $c:ident $k:literal) )+) => {
        pub mod typed_ecs {
            use super::*;
            use ::typed_ecs::prelude::*;
            use ::typed_ecs::{EventCursor, EventsOf};

            pub struct Pos;

            world! {
                pub struct ManyEvents<Pos>;
                events { $( $ev: Ev<$k> ),+ }
            }

            pub struct Cursors {
                $( $c: EventCursor<Ev<$k>>, )+
            }

            pub struct State {
                world: ManyEvents,
                cursors: Box<Cursors>,
                total: u64,
                runs: u64,
            }

            fn step<const K: usize>(
                world: &mut ManyEvents,
                cursor: &mut EventCursor<Ev<K>>,
                sum: &mut u64,
            ) where
                ManyEvents: EventsOf<Ev<K>>,
            {
                let events = world.events_mut();
                for i in 0..count(K) {
                    events.send(Ev(i));
                }
                *sum += cursor.read_mut(events).map(|e| u64::from(e.0)).sum::<u64>();
            }

            pub fn setup(_: usize) -> State {
                let mut world = ManyEvents::new();
                let cursors = Box::new(Cursors {
                    $( $c: world.$ev.cursor(), )+
                });
                State {
                    world,
                    cursors,
                    total: 0,
                    runs: 0,
                }
            }

            impl Instance for State {
                fn run(&mut self) {
                    let mut sum = 0;
                    $( step::<$k>(&mut self.world, &mut self.cursors.$c, &mut sum); )+
                    self.total += black_box(sum);
                    self.runs += 1;
                }
                fn check(&self) -> Check {
                    check(self.total, self.runs)
                }
            }
        }

        pub mod bevy {
            use super::*;
            use ::bevy_ecs::message::{MessageCursor, Messages};
            use ::bevy_ecs::world::World;

            pub struct Cursors {
                $( $c: MessageCursor<Ev<$k>>, )+
            }

            pub struct State {
                world: World,
                cursors: Box<Cursors>,
                total: u64,
                runs: u64,
            }

            fn step<const K: usize>(
                world: &mut World,
                cursor: &mut MessageCursor<Ev<K>>,
                sum: &mut u64,
            ) {
                let mut messages = world.resource_mut::<Messages<Ev<K>>>();
                for i in 0..count(K) {
                    messages.write(Ev(i));
                }
                *sum += cursor.read(&messages).map(|e| u64::from(e.0)).sum::<u64>();
                messages.update();
            }

            /// Registers the messages of type `Ev<K>` and takes a cursor.
            fn cursor<const K: usize>(world: &mut World) -> MessageCursor<Ev<K>> {
                world.init_resource::<Messages<Ev<K>>>();
                world.resource::<Messages<Ev<K>>>().get_cursor()
            }

            pub fn setup(_: usize) -> State {
                let mut world = World::new();
                let cursors = Box::new(Cursors {
                    $( $c: cursor::<$k>(&mut world), )+
                });
                State {
                    world,
                    cursors,
                    total: 0,
                    runs: 0,
                }
            }

            impl Instance for State {
                fn run(&mut self) {
                    let mut sum = 0;
                    $( step::<$k>(&mut self.world, &mut self.cursors.$c, &mut sum); )+
                    self.total += black_box(sum);
                    self.runs += 1;
                }
                fn check(&self) -> Check {
                    check(self.total, self.runs)
                }
            }
        }
    };
}

implementations! {
    (e0 c0 0)
    (e1 c1 1)
    (e2 c2 2)
    (e3 c3 3)
    (e4 c4 4)
    (e5 c5 5)
    (e6 c6 6)
    (e7 c7 7)
    (e8 c8 8)
    (e9 c9 9)
    (e10 c10 10)
    (e11 c11 11)
    (e12 c12 12)
    (e13 c13 13)
    (e14 c14 14)
    (e15 c15 15)
    (e16 c16 16)
    (e17 c17 17)
    (e18 c18 18)
    (e19 c19 19)
    (e20 c20 20)
    (e21 c21 21)
    (e22 c22 22)
    (e23 c23 23)
    (e24 c24 24)
    (e25 c25 25)
    (e26 c26 26)
    (e27 c27 27)
    (e28 c28 28)
    (e29 c29 29)
    (e30 c30 30)
    (e31 c31 31)
    (e32 c32 32)
    (e33 c33 33)
    (e34 c34 34)
    (e35 c35 35)
    (e36 c36 36)
    (e37 c37 37)
    (e38 c38 38)
    (e39 c39 39)
    (e40 c40 40)
    (e41 c41 41)
    (e42 c42 42)
    (e43 c43 43)
    (e44 c44 44)
    (e45 c45 45)
    (e46 c46 46)
    (e47 c47 47)
    (e48 c48 48)
    (e49 c49 49)
    (e50 c50 50)
    (e51 c51 51)
    (e52 c52 52)
    (e53 c53 53)
    (e54 c54 54)
    (e55 c55 55)
    (e56 c56 56)
    (e57 c57 57)
    (e58 c58 58)
    (e59 c59 59)
    (e60 c60 60)
    (e61 c61 61)
    (e62 c62 62)
    (e63 c63 63)
    (e64 c64 64)
    (e65 c65 65)
    (e66 c66 66)
    (e67 c67 67)
    (e68 c68 68)
    (e69 c69 69)
    (e70 c70 70)
    (e71 c71 71)
    (e72 c72 72)
    (e73 c73 73)
    (e74 c74 74)
    (e75 c75 75)
    (e76 c76 76)
    (e77 c77 77)
    (e78 c78 78)
    (e79 c79 79)
    (e80 c80 80)
    (e81 c81 81)
    (e82 c82 82)
    (e83 c83 83)
    (e84 c84 84)
    (e85 c85 85)
    (e86 c86 86)
    (e87 c87 87)
    (e88 c88 88)
    (e89 c89 89)
    (e90 c90 90)
    (e91 c91 91)
    (e92 c92 92)
    (e93 c93 93)
    (e94 c94 94)
    (e95 c95 95)
    (e96 c96 96)
    (e97 c97 97)
    (e98 c98 98)
    (e99 c99 99)
}

pub mod raw {
    use super::*;

    pub struct State {
        queues: Vec<Vec<u32>>,
        total: u64,
        runs: u64,
    }

    pub fn setup(_: usize) -> State {
        State {
            queues: vec![Vec::new(); 100],
            total: 0,
            runs: 0,
        }
    }

    impl Instance for State {
        fn run(&mut self) {
            let mut sum = 0;
            for (k, queue) in self.queues.iter_mut().enumerate() {
                for i in 0..count(k) {
                    queue.push(i);
                }
                sum += queue.iter().map(|&e| u64::from(e)).sum::<u64>();
                queue.clear();
            }
            self.total += black_box(sum);
            self.runs += 1;
        }
        fn check(&self) -> Check {
            check(self.total, self.runs)
        }
    }
}
