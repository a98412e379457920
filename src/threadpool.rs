//! Lazy SMP: search threads that start once and wait between searches.
//!
//! Every thread owns a [`Searcher`] (its own history tables, killers and
//! stack) and searches the same root; they cooperate only through the shared
//! lockless transposition table. Thread 0 is the main thread: it alone prints
//! `info`, decides when the search ends, waits for every helper to stop and
//! then sends the one `bestmove` of the `go`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, Sender};
use shakmaty::{CastlingMode, Move, Position};

use crate::board::move_to_uci;
use crate::output::Output;
use crate::search::{info_line, number_line, Job, SearchResult, Searcher};

/// Deep recursion with per-ply state needs more than the default 2 MB stack
/// (and more than a Windows main thread's, which the executable fixes at
/// 1 or 2 MB), so every search runs on a thread of its own with this stack.
pub const SEARCH_STACK_BYTES: usize = 64 * 1024 * 1024;

enum Message {
    Search(Arc<Job>),
    /// `ucinewgame`: forget the histories learned in the last game.
    NewGame,
    Exit,
}

struct Worker {
    inbox: Sender<Message>,
    handle: JoinHandle<()>,
}

pub struct ThreadPool {
    workers: Vec<Worker>,
    /// The main thread reports here once `bestmove` has been sent and every
    /// thread has let go of the job.
    finished: Receiver<()>,
    searching: bool,
}

impl ThreadPool {
    /// Starts `threads` search threads (at least one). When the system
    /// refuses a thread, the pool keeps the ones it got and says so.
    /// `output` hears of a thread the system refused.
    pub fn new(threads: usize, output: Output) -> Result<ThreadPool, String> {
        let threads = threads.max(1);
        let (finished_tx, finished) = unbounded();
        let (helper_done_tx, helper_done_rx) = unbounded();
        let mut workers = Vec::with_capacity(threads);
        // Helpers first, so that the main thread knows how many to wait for.
        for id in 1..threads {
            let (inbox, messages) = unbounded();
            let done = helper_done_tx.clone();
            match spawn_thread(id, move || helper_loop(id, messages, done)) {
                Ok(handle) => workers.push(Worker { inbox, handle }),
                Err(e) => {
                    output.problem(&format!(
                        "cannot start search thread {id}: {e}; using {id} threads"
                    ));
                    break;
                }
            }
        }
        let helpers = workers.len();
        let (inbox, messages) = unbounded();
        let main = match spawn_thread(0, move || {
            main_loop(messages, helpers, helper_done_rx, finished_tx)
        }) {
            Ok(handle) => handle,
            Err(e) => {
                // Dropping the helpers' inboxes ends their loops.
                for worker in workers {
                    drop(worker.inbox);
                    let _ = worker.handle.join();
                }
                return Err(format!("cannot start the main search thread: {e}"));
            }
        };
        workers.insert(
            0,
            Worker {
                inbox,
                handle: main,
            },
        );
        Ok(ThreadPool {
            workers,
            finished,
            searching: false,
        })
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Starts a search on every thread; returns at once.
    pub fn start(&mut self, job: Job) {
        self.wait();
        let job = Arc::new(job);
        for worker in &self.workers {
            // A send fails only if the thread is gone, which the main loop
            // prevents by catching panics.
            let _ = worker.inbox.send(Message::Search(Arc::clone(&job)));
        }
        self.searching = true;
    }

    /// Waits until the current search has sent its `bestmove` (the caller
    /// raises the stop flag first when it wants it soon).
    pub fn wait(&mut self) {
        if self.searching {
            let _ = self.finished.recv();
            self.searching = false;
        }
    }

    /// True when no search is running; collects one that ended on its own.
    pub fn is_idle(&mut self) -> bool {
        if self.searching && self.finished.try_recv().is_ok() {
            self.searching = false;
        }
        !self.searching
    }

    pub fn new_game(&mut self) {
        self.wait();
        for worker in &self.workers {
            let _ = worker.inbox.send(Message::NewGame);
        }
    }

    /// Stops and joins every thread.
    fn shutdown(&mut self) {
        self.wait();
        for worker in &self.workers {
            let _ = worker.inbox.send(Message::Exit);
        }
        for worker in self.workers.drain(..) {
            let _ = worker.handle.join();
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn spawn_thread<F>(id: usize, body: F) -> std::io::Result<JoinHandle<()>>
where
    F: FnOnce() + Send + 'static,
{
    std::thread::Builder::new()
        .name(format!("search-{id}"))
        .stack_size(SEARCH_STACK_BYTES)
        .spawn(body)
}

/// Runs one search, turning a panic into `None` and a fresh searcher, so a
/// bug costs one search and never the thread.
fn guarded_think(searcher: &mut Searcher, job: &Job) -> Option<SearchResult> {
    let ctx = job.context();
    match catch_unwind(AssertUnwindSafe(|| searcher.think(&job.root, &ctx))) {
        Ok(result) => Some(result),
        Err(_) => {
            let id = searcher.thread_id;
            *searcher = Searcher::new(id);
            None
        }
    }
}

fn helper_loop(id: usize, messages: Receiver<Message>, done: Sender<Option<SearchResult>>) {
    let mut searcher = Searcher::new(id);
    while let Ok(message) = messages.recv() {
        match message {
            Message::Search(job) => {
                let result = guarded_think(&mut searcher, &job);
                if result.is_none() {
                    job.output
                        .problem(&format!("internal error in search thread {id}"));
                }
                drop(job);
                let _ = done.send(result);
            }
            Message::NewGame => searcher.clear(),
            Message::Exit => break,
        }
    }
}

fn main_loop(
    messages: Receiver<Message>,
    helpers: usize,
    helper_done: Receiver<Option<SearchResult>>,
    finished: Sender<()>,
) {
    let mut searcher = Searcher::new(0);
    while let Ok(message) = messages.recv() {
        match message {
            Message::Search(job) => {
                let (best, ponder) = run_main_search(&mut searcher, &job, helpers, &helper_done);
                let (mode, output) = (job.castling_mode, job.output);
                // Every thread has dropped the job before the controller
                // hears of the end, so it may resize the table at once.
                drop(job);
                send_bestmove(best, ponder, mode, output);
                let _ = finished.send(());
            }
            Message::NewGame => searcher.clear(),
            Message::Exit => break,
        }
    }
}

/// The main thread's part of a `go`: search, hold the answer while pondering
/// or infinite, stop the helpers and wait for them.
fn run_main_search(
    searcher: &mut Searcher,
    job: &Job,
    helpers: usize,
    helper_done: &Receiver<Option<SearchResult>>,
) -> (Option<Move>, Option<Move>) {
    let signals = &job.signals;
    let started_pondering = signals.pondering.load(Ordering::Relaxed);
    let result = guarded_think(searcher, job);
    // `go infinite` and `go ponder` must not answer before `stop` (or
    // `ponderhit`), even when the search has nothing left to do.
    while !signals.stop.load(Ordering::Relaxed)
        && (job.limits.infinite || signals.pondering.load(Ordering::Relaxed))
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    signals.stop.store(true, Ordering::Relaxed);
    let mut deeper: Option<SearchResult> = None;
    for _ in 0..helpers {
        if let Ok(Some(helper)) = helper_done.recv() {
            if !job.limits.main_thread_decides()
                && result.as_ref().is_some_and(|main| is_better(&helper, main))
                && deeper.as_ref().is_none_or(|best| is_better(&helper, best))
            {
                deeper = Some(helper);
            }
        }
    }
    let played = match (result, deeper) {
        // A helper finished a deeper iteration with a score at least as
        // good: its move is the better informed one.
        (Some(_), Some(helper)) => helper,
        (Some(result), None) => result,
        (None, _) => {
            job.output
                .problem("internal error in the search; playing a legal move");
            return (job.root.pos.legal_moves().first().copied(), None);
        }
    };
    show_played_line(searcher, &played, job, started_pondering);
    (played.best, played.ponder)
}

/// The last exact line before `bestmove` is the line of the move played,
/// with that move's score: a GUI shows it, and match runners write its
/// score into the PGN comment of the move. When the line last sent was of
/// another move or score (a helper's move, a move that took the lead in an
/// interrupted iteration, a line a limited strength chose), the played
/// line goes out now.
fn show_played_line(
    searcher: &Searcher,
    played: &SearchResult,
    job: &Job,
    started_pondering: bool,
) {
    let Some(best) = played.best else {
        return;
    };
    if searcher.last_shown != Some((best, played.score)) {
        let ctx = job.context();
        let nodes = job.signals.nodes.load(Ordering::Relaxed);
        let mut line = info_line(
            played.depth,
            played.seldepth,
            played.score,
            nodes,
            played.pv.iter(),
            &ctx,
        );
        if job.limits.multipv > 1 {
            number_line(&mut line, 1);
        }
        job.output.send(&line);
    } else if started_pondering {
        // After `ponderhit` a GUI (python-chess, so lichess-bot) keeps
        // only the lines that follow it: repeat the latest so the move it
        // plays comes with a score and a PV.
        job.output.send(&searcher.last_report);
    }
}

/// Whether `candidate` should be played instead of `current`: a deeper
/// completed iteration whose score is not worse.
fn is_better(candidate: &SearchResult, current: &SearchResult) -> bool {
    candidate.best.is_some() && candidate.depth > current.depth && candidate.score >= current.score
}

pub fn send_bestmove(best: Option<Move>, ponder: Option<Move>, mode: CastlingMode, output: Output) {
    match (best, ponder) {
        (Some(b), Some(p)) => output.send(&format!(
            "bestmove {} ponder {}",
            move_to_uci(b, mode),
            move_to_uci(p, mode)
        )),
        (Some(b), None) => output.send(&format!("bestmove {}", move_to_uci(b, mode))),
        (None, _) => output.send("bestmove 0000"),
    }
}
