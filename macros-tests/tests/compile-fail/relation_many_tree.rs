// A `many` relation gives a source several targets; a `tree` one target.
use typed_ecs::prelude::*;

pub struct Tag;
pub struct Likes;

world! {
    pub struct Town<Tag>;
    relations { likes: Likes -> liked_by [many, tree]; }
}

fn main() {}
