// An event the world does not declare: the error names the event, the
// world and the `events { … }` line to add.
use typed_ecs::prelude::*;

pub struct Pos(pub f32);
pub struct Damage(pub u32);

world! {
    pub struct Game<Pos>;
}

fn inbox(inbox: &mut Reader<Damage>) { let _ = inbox; }
fn main() { Schedule::<Game>::new().add_system(inbox); }
