// A storage's change record cannot be driven from outside: a bound
// `K: Track` reaches none of its hooks.
use typed_ecs::Track;

fn poke<K: Track>(track: &mut K) {
    track.tick();
}

fn main() {}
