//! Random-bytes fuzzing of the model harness without cargo-fuzz: random byte
//! strings, read as operations by `harness::ops_from_bytes` (exactly as the
//! coverage-guided target in `fuzz/` reads its input), until time runs out.
//! Ignored by default; run it with
//!
//! ```text
//! FUZZ_SECONDS=600 cargo test --release --test fuzz_driver -- --ignored --nocapture
//! ```
//!
//! `FUZZ_SECONDS` defaults to 60 and `FUZZ_SEED` (the generator's seed) to
//! a fixed value. A failing input is printed in hex; replay it with
//! `FUZZ_REPLAY=<hex> cargo test --test fuzz_driver -- --ignored --nocapture`.

#[path = "support/harness/mod.rs"]
mod harness;

use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

use harness::{listing, minimize, ops_from_bytes, run_bytes, CODE_LEN};

#[path = "support/rng.rs"]
mod rng;

use rng::Rng;

/// The longest input, in operations.
const MAX_OPS: usize = 400;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text} is not a number")),
        Err(_) => default,
    }
}

fn to_hex(data: &[u8]) -> String {
    data.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn from_hex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex digits"))
        .collect()
}

#[test]
#[ignore = "runs for FUZZ_SECONDS (60): see the file's doc for the command"]
fn fuzz_random_bytes() {
    if let Ok(hex) = std::env::var("FUZZ_REPLAY") {
        let data = from_hex(hex.trim());
        println!("replaying {:#?}", ops_from_bytes(&data));
        run_bytes(&data);
        return;
    }
    let seconds = env_u64("FUZZ_SECONDS", 60);
    let seed = env_u64("FUZZ_SEED", 0x5eed_f00d_d00d_f00d) | 1;
    let mut rng = Rng::new(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut sequences, mut ops) = (0u64, 0u64);
    let mut data = Vec::new();
    while Instant::now() < deadline {
        let len = (rng.next_u64() % (MAX_OPS * CODE_LEN + 1) as u64) as usize;
        data.clear();
        while data.len() < len {
            data.extend_from_slice(&rng.next_u64().to_le_bytes());
        }
        data.truncate(len);
        if let Err(panic) = panic::catch_unwind(AssertUnwindSafe(|| run_bytes(&data))) {
            eprintln!(
                "failed on sequence {sequences} (seed {seed:#x}); replay with FUZZ_REPLAY={}",
                to_hex(&data)
            );
            let (minimal, why) = minimize(&ops_from_bytes(&data));
            eprintln!(
                "minimal failing sequence ({} operations; {why}):\n{}",
                minimal.len(),
                listing(&minimal)
            );
            panic::resume_unwind(panic);
        }
        sequences += 1;
        ops += (len / CODE_LEN) as u64;
    }
    println!("fuzz_random_bytes: {sequences} sequences, {ops} operations checked in {seconds} s (seed {seed:#x})");
}
