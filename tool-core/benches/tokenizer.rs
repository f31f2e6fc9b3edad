//! The `allowed-tools` tokenizer against the one-line regex most readers use
//! instead, over every `allowed-tools` value of the shared corpus.
//!
//! The regex only finds the spans of tokens; `tokenize` also checks each
//! token, unescapes scopes, folds duplicates and keeps positions. The input
//! is the raw text of each field as written in its file (see
//! `raw_allowed_tools`); BENCHMARKS.md, "Skills: tokenizer", has the figures.

mod corpus;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use regex::Regex;
use tool_core::skills::tokenize;

fn bench(c: &mut Criterion) {
    let inputs = corpus::inputs();
    let bytes: usize = inputs.iter().map(String::len).sum();
    eprintln!(
        "tokenizer bench: {} `allowed-tools` values, {bytes} bytes",
        inputs.len()
    );
    let one_line = Regex::new(corpus::ONE_LINE).expect("valid regex");

    let mut group = c.benchmark_group("allowed_tools_corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("tokenize", |b| {
        b.iter(|| {
            for input in &inputs {
                black_box(tokenize(black_box(input)));
            }
        });
    });
    group.bench_function("one_line_regex", |b| {
        b.iter(|| {
            for input in &inputs {
                let tokens: Vec<&str> = one_line
                    .find_iter(black_box(input))
                    .map(|m| m.as_str())
                    .collect();
                black_box(tokens);
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
