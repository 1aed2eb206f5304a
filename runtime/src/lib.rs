//! rulebook-runtime: the small, game-agnostic library generated resolvers link against — exact
//! numbers, dice (seeded, scripted, enumerated), traces, dynamic values, input binding and exact
//! odds. `API.md` in this crate is the contract with the compiler's generated code.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod arg;
pub mod best;
pub mod best_ask;
pub mod bind;
pub mod chain;
pub mod compiled;
pub mod dice;
pub mod error;
pub mod few;
pub mod flat;
pub mod forward;
pub mod json;
pub mod list;
pub mod names;
pub mod num;
pub mod objective;
pub mod odds;
pub mod registry;
pub mod sim;
pub mod sorted;
pub mod steps;
pub mod sweep;
pub mod tally;
pub mod text;
pub mod trace;
pub mod value;
pub mod watch;

/// Serde, for the `Serialize` impls of generated types (`rt::serde::Serialize`).
pub use serde;

pub use arg::Arg;
pub use bind::{
    bind_inputs, bind_json, bind_json_sets, bind_yaml, nearest, normalize, parse_input, parse_value, parse_yaml, yaml_input, yaml_to_value,
    YamlProblem, MAX_YAML_DEPTH,
};
pub use chain::{chain, chain_typed, state_hasher, Chain, ChainStep};
pub use compiled::{compiled, dec_in_range, in_range, Compiled};
pub use dice::{Dice, DiceSpec, Read, Scripted, Seeded};
pub use error::{leave, Error, RulePlace, Violation};
pub use few::Few;
pub use flat::{visit_flat, Flat, Flatten, Label};
pub use forward::{enumerate_forward, forward_stats, memo_call_fwd, Fw, Sink};
pub use list::{list_room, List, MAX_LIST_LEN};
pub use num::{dec_sqrt, div_ceil, div_floor, div_round_half_up, isqrt, rem, Dec};
pub use odds::{enumerate, enumerate_with_limit, enumerator, memo_call, with_leaf_limit, with_plain_calls, Distribution, Enumerator, Prob};
pub use registry::{
    find_resolver, find_system, left_out, odds_dyn, EnumInfo, Exec, FieldInfo, InputInfo, OptionInfo, RecordInfo, ResolverInfo, RunFn,
    Runner, SystemInfo, TableInfo, Ty,
};
pub use sim::{exact_shares, run_seed, simulate, simulate_range, simulate_until, Estimate, Tally, Until, MAX_HISTOGRAM_VALUES};
pub use sorted::{sorted_view, SortedView};
pub use steps::{Site, SiteKind, MAX_STEPS, RESOLUTION_STACK};
pub use tally::{PrepareFn, Prepared};
pub use text::Text;
pub use trace::{Event, NoTrace, Recorder, Trace};
pub use value::{
    get_bool, get_dec, get_enum, get_int, get_key, get_list, get_text, value_as_bool, value_as_dec, value_as_enum, value_as_int,
    value_as_key, value_as_text, EnumType, Inputs, Key, Value,
};
pub use watch::{with_watch, Watch};

/// Room for the items an iterator will give, for generated code that collects them: its upper
/// bound when it has one (a filter's is the length of the list it filters), else its lower bound.
#[inline]
pub fn room<I: Iterator>(items: &I) -> usize {
    let (low, high) = items.size_hint();
    high.unwrap_or(low)
}
