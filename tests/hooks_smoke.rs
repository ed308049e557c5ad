use typed_ecs::prelude::*;

#[derive(Debug, Clone, PartialEq)]
struct Health(u32);
#[derive(Debug, Clone, PartialEq)]
struct Bar(Entity);
#[derive(Debug, Clone, PartialEq)]
struct Pos(i32);

#[derive(Default, Debug)]
struct Log(Vec<String>);

world! {
    #[derive(Debug)]
    struct Game<Health, Bar, Pos>;
    resources { log: Log }
    tracked (Pos);
    hooks {
        on_add(Health) => attach_bar, log_spawn;
        on_remove(Health) => detach_bar;
        on_change(Pos) => reindex;
    }
}

fn attach_bar(added: OnAdd<Health>, hp: &SparseMap<Health>, cmds: &mut Commands<Game>) {
    for e in added {
        let _ = hp.get(e);
        let bar = cmds.spawn();
        cmds.add(bar, Bar(e));
    }
}
fn log_spawn(added: OnAdd<Health>, log: &mut Log) {
    for e in added {
        log.0.push(format!("add {e:?}"));
    }
}
fn detach_bar(removed: OnRemove<Health>, log: &mut Log) {
    for (e, h) in removed {
        log.0.push(format!("remove {e:?} {}", h.0));
    }
}
fn reindex(moved: OnChange<Pos>, log: &mut Log) {
    log.0.push(format!("moved {}", moved.len()));
}

#[test]
fn smoke() {
    let mut world = Game::new();
    let e = world.spawn_with((Health(3), Pos(0)));
    assert_eq!(world.bar.len(), 1);
    assert_eq!(world.log.0.len(), 1);
    let h = world.remove::<Health>(e);
    assert_eq!(h, Some(Health(3)));
    assert_eq!(world.log.0.len(), 2);
    world.finalize_updates();
    assert_eq!(world.log.0.len(), 3, "{:?}", world.log.0);
    world.add(e, Health(5));
    world.despawn(e);
    assert_eq!(world.log.0.len(), 5, "{:?}", world.log.0);
    assert!(world.take_hook_report().is_clean());
}
