// The list form takes paths; each field is named after the last segment.
use typed_ecs::prelude::*;

mod ui {
    pub struct Position(pub f32, pub f32);
    pub mod deep {
        pub struct HealthBar(pub u8);
        pub struct Shield(pub u8);
    }
}

pub struct Velocity(pub f32, pub f32);

#[derive(Default)]
pub struct Time(pub f32);

world! {
    /// A world whose components live in other modules.
    pub struct Game<ui::Position, Velocity, ui::deep::HealthBar, crate::ui::deep::Shield>;
    resources { time: Time }
    group (ui::Position, Velocity);
}

fn main() {
    let mut game = Game::new();
    let e = game.spawn_with((ui::Position(1.0, 2.0), Velocity(0.5, 0.0), ui::deep::HealthBar(9)));
    assert_eq!(game.position.get(e).map(|p| p.0), Some(1.0));
    assert_eq!(game.health_bar.get(e).map(|h| h.0), Some(9));
    assert_eq!(game.group_len::<(ui::Position, Velocity)>(), Some(1));
    assert_eq!(game.shield.len(), 0);
    game.time.0 += 1.0;
}
