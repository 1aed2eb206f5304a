//! The watch of an exact computation: how far it has come, read from another thread (progress
//! bars), and a way to stop it (time budgets). It is below everything that reads it: the odds
//! engine, the chain of steps, and the step limit (`steps`), which stops a long loop between two
//! dice.

/// How far an enumeration on another thread has come, and a way to stop it: the caller shares
/// one with `with_watch` and reads it (progress bars) or cancels it (time budgets) from outside.
/// The runtime itself never reads a clock.
#[derive(Debug, Default)]
pub struct Watch {
    /// Leaves visited so far.
    pub leaves: std::sync::atomic::AtomicU64,
    /// Share of the tree behind the current leaf, in millionths (by branch counts, not weight).
    pub done_ppm: std::sync::atomic::AtomicU64,
    /// Set by the caller: the enumeration stops with `Error::OddsStopped` at its next check.
    pub cancel: std::sync::atomic::AtomicBool,
    /// What the caller reports in that error (its own budget, in seconds).
    pub budget_seconds: std::sync::atomic::AtomicU64,
    /// A chain of steps (`odds --until`): the step under way (0 when the work is no chain)...
    pub chain_step: std::sync::atomic::AtomicU64,
    /// ...and the states worked out so far.
    pub chain_states: std::sync::atomic::AtomicU64,
}

thread_local! {
    static WATCH: std::cell::RefCell<Option<std::sync::Arc<Watch>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with every `enumerate` on this thread reporting to `watch` (about every thousand
/// leaves) and stopping when it is cancelled.
pub fn with_watch<R>(watch: std::sync::Arc<Watch>, f: impl FnOnce() -> R) -> R {
    let old = WATCH.with(|w| w.replace(Some(watch)));
    let r = f();
    WATCH.with(|w| *w.borrow_mut() = old);
    r
}

/// The budget, in seconds, of a watch on this thread that the caller has cancelled: a long
/// computation made of many small enumerations (a chain of steps) checks it between them, as
/// each enumeration checks it every thousand leaves.
pub fn cancelled() -> Option<u64> {
    use std::sync::atomic::Ordering::Relaxed;
    WATCH.with(|w| {
        w.borrow()
            .as_ref()
            .filter(|w| w.cancel.load(Relaxed))
            .map(|w| w.budget_seconds.load(Relaxed))
    })
}

/// A chain of steps reports where it is to a watch on this thread, if any.
pub(crate) fn report_chain(step: u32, states: usize) {
    use std::sync::atomic::Ordering::Relaxed;
    WATCH.with(|w| {
        if let Some(w) = w.borrow().as_ref() {
            w.chain_step.store(u64::from(step), Relaxed);
            w.chain_states.store(u64::try_from(states).unwrap_or(u64::MAX), Relaxed);
        }
    });
}

/// The watch on this thread, if any (`with_watch`).
pub(crate) fn current_watch() -> Option<std::sync::Arc<Watch>> {
    WATCH.with(|w| w.borrow().clone())
}
