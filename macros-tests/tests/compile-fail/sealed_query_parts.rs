// A query term is one of typed_ecs's: `QueryParts` is sealed, so a crate
// cannot make a term of its own and run it.
use typed_ecs::prelude::*;
use typed_ecs::QueryParts;

pub struct Pos(i32);
world! { pub struct Game<Pos>; }

pub struct MyTerm;

impl<'w> QueryParts<'w, Game> for MyTerm {
    type Fetch = &'w SparseMap<Pos>;
    const REQUIRED: bool = true;
    const EACH_COMPONENT_ONCE: () = ();
    fn fetch(_: &mut <Game as typed_ecs::__private::Storages>::Parts<'w>) -> Self::Fetch {
        unreachable!()
    }
    fn sync(_: &mut Game) {}
    fn in_step(_: &Game) -> bool {
        true
    }
}

fn main() {}
