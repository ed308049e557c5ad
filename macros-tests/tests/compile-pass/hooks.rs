// Three hooks on one component, in both forms of `world!`, with a depth, a
// generic-free mix of parameters (storages, resources, `Commands`, events),
// and a tracked component's `on_change`.
use typed_ecs::prelude::*;

pub struct Health(pub u32);
pub struct HealthBar(pub Entity);
pub struct Pos(pub f32);
#[derive(Default)]
pub struct Log(pub Vec<&'static str>);
pub struct Spawned(pub Entity);

world! {
    pub struct Game<Health, HealthBar, Pos>;
    resources { log: Log }
    events { spawned: Spawned }
    tracked (Pos);
    hooks (depth 3) {
        on_add(Health) => attach_bar, log_add, announce;
        on_remove(Health) => detach_bar;
        on_change(Pos) => moved;
    }
}

world! {
    pub struct Fields { hp: Health, bar: HealthBar }
    hooks { on_add(Health) => first, second, third; }
}

fn attach_bar(added: OnAdd<Health>, hp: &SparseMap<Health>, commands: &mut Commands<Game>) {
    for e in added {
        if hp.get(e).is_some() {
            let bar = commands.spawn();
            commands.add(bar, HealthBar(e));
        }
    }
}
fn log_add(_: OnAdd<Health>, log: &mut Log) {
    log.0.push("add");
}
fn announce(added: OnAdd<Health>, out: &mut Writer<Spawned>) {
    for e in added {
        out.send(Spawned(e));
    }
}
fn detach_bar(removed: OnRemove<Health>, bars: &SparseMap<HealthBar>, commands: &mut Commands<Game>) {
    for (e, _) in removed {
        for (bar, owner) in bars.iter() {
            if owner.0 == e {
                commands.despawn(bar);
            }
        }
    }
}
fn moved(changed: OnChange<Pos>, log: &mut Log) {
    if !changed.is_empty() {
        log.0.push("moved");
    }
}
fn first(_: OnAdd<Health>) {}
fn second(_: OnAdd<Health>, _: &SparseMap<HealthBar>) {}
fn third(_: OnAdd<Health>, _: &mut SparseMap<HealthBar>) {}

fn main() {
    let mut world = Game::new();
    let e = world.spawn_with((Health(3), Pos(0.0)));
    assert_eq!(world.log.0, ["add"]);
    assert_eq!(world.health_bar.len(), 1);
    world.despawn(e);
    assert_eq!(world.health_bar.len(), 0);
    let mut fields = Fields::new();
    fields.spawn_with((Health(1),));
}
