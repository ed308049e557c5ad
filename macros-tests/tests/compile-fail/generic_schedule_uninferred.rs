// In code generic over the world, a schedule whose type is not yet known
// where a system is added is taken for a declared world's: the message
// says to name its type.
use typed_ecs::prelude::*;

pub struct Pos(pub i32);

fn fall<W: Contains<Pos>>(pos: &mut StorageOf<W, Pos>) {
    let _ = pos;
}

fn schedule<W: World + Contains<Pos>>() -> Schedule<W> {
    let mut schedule = Schedule::new();
    schedule.add_system(fall::<W>);
    schedule
}

world! { pub struct Game<Pos>; }

fn main() {
    let _ = schedule::<Game>();
}
