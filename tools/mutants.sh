#!/usr/bin/env bash
# Recorded mutants: deliberate small breaks of the code, each with the test
# command that must catch it (docs/testing.md, "Mutants"). Each is applied in
# a scratch copy of this working tree (its tracked and untracked, not ignored
# files; this tree is never changed), its test is run there, and the table
# says which tests caught their break. A mutant whose edit no longer applies
# or whose code no longer builds counts as missed: it must be brought up to
# date. Slow (every mutant rebuilds what it touches) and not part of
# `make test` or CI.
#
#   tools/mutants.sh            every mutant
#   tools/mutants.sh NAME...    the named ones
#   tools/mutants.sh --list     names, files and tests
#   tools/mutants.sh --check    every edit still applies (quick; make test runs it)
#
# MUTANTS_TARGET: the cargo target folder of the scratch builds, kept between
# runs so each mutant rebuilds only what it changed (default
# target/mutants). MUTANTS_TIMEOUT: seconds one test command may run before
# it counts as caught by a hang (default 900).
set -u

repo=$(git rev-parse --show-toplevel) || exit 2
cd "$repo" || exit 2
target=${MUTANTS_TARGET:-$repo/target/mutants}
timeout_s=${MUTANTS_TIMEOUT:-900}

# The Python tests run in this tree's virtual environment (`make venv`).
py=$repo/.venv/bin/python

names=() files=() edits=() tests=()
# mutant NAME FILE SED-SCRIPT TEST-COMMAND: the sed script must change FILE
# (a mutant that no longer applies is reported, not silently passed).
mutant() {
    names+=("$1") files+=("$2") edits+=("$3") tests+=("$4")
}

# --- the trainer's gradient (tools/trainer/tests/trainer.rs) ---------------
grad='cargo test --release -p trainer --test trainer gradient_matches_finite_differences'
mutant trainer-feature-grad-zero tools/trainer/src/model.rs \
    's/\*c += d;/*c += 0.0 * d;/' "$grad"
mutant trainer-feature-grad-halved tools/trainer/src/model.rs \
    's/\*c += d;/*c += 0.5 * d;/' "$grad"
mutant trainer-feature-grad-flipped tools/trainer/src/model.rs \
    's/\*c += d;/*c -= d;/' "$grad"
mutant trainer-feature-bias-grad-zero tools/trainer/src/model.rs \
    's/grad\[shape.feature_bias + j\] += g_us\[j\] + g_them\[j\];/grad[shape.feature_bias + j] += 0.0;/' "$grad"
mutant trainer-screlu-slope-halved tools/trainer/src/model.rs \
    's/g_out \* w\[j\] \* 2.0 \* x/g_out * w[j] * x/' "$grad"

# --- the trainer's target and what it loads (tools/trainer/tests/) ---------
mutant trainer-target-lambda-swapped tools/trainer/src/model.rs \
    's/    lambda \* result + (1.0 - lambda) \* score/    (1.0 - lambda) * result + lambda * score/' \
    'cargo test --release -p trainer --test trainer the_target_is_lambda'
mutant trainer-target-scale-ignored tools/trainer/src/model.rs \
    's|    let score = sigmoid(f32::from(pos.score) / SCALE as f32);|    let score = sigmoid(f32::from(pos.score) / 100.0);|' \
    'cargo test --release -p trainer --test trainer the_target_is_lambda'

load='cargo test --release -p trainer --test loading'
mutant trainer-loads-whites-result tools/trainer/src/data.rs \
    's/                s.stm_result(),/                s.result.white_score(),/' "$load"
mutant trainer-loads-whites-score tools/trainer/src/data.rs \
    's/                s.score,/                s.white_score() as i16,/' "$load"
mutant sample-result-for-white-only tools/datagen/src/format.rs \
    's/            Color::Black => 1.0 - white,/            Color::Black => white,/' "$load"

# --- the king-bucket factoriser (tools/trainer/tests/trainer.rs) -----------
factoriser='cargo test --release -p trainer --test trainer factoris'
mutant trainer-factoriser-not-exported tools/trainer/src/model.rs \
    's/let common = shared.map_or(0.0, |s| self.values\[s \* HIDDEN + j\]);/let common = shared.map_or(0.0, |_| 0.0);/' "$factoriser"
mutant trainer-factoriser-not-shared tools/trainer/src/model.rs \
    's/list\[n + i\] = (shared + usize::from(list\[i\]) % INPUTS) as u16;/list[n + i] = list[i] + 0 * shared as u16;/' "$factoriser"

# --- a new table resident before readyok (engine-tests/uci_protocol.rs) ----
resident='cargo test --release --test uci_protocol a_new_table_is_resident_before_readyok'
mutant hash-left-lazy src/engine.rs \
    's/                                tt.make_resident();/                                let _ = tt;/' "$resident"
mutant hash-touch-skipped src/tt/memory.rs \
    's/    if !fits_in_memory(len) {/    if fits_in_memory(len) {/' "$resident"

# --- ucinewgame forgets, in place (src/search/mod.rs) ---------------------
cleared='cargo test --release -p kiraly --lib search::tests::a_cleared_searcher_searches_as_a_new_one'
mutant clear-keeps-butterfly src/search/mod.rs \
    's/        self.butterfly.clear();/        let _ = \&self.butterfly;/' "$cleared"
mutant clear-keeps-continuation src/search/mod.rs \
    's/        self.continuation.clear();/        let _ = \&self.continuation;/' "$cleared"
mutant clear-keeps-corrections src/search/mod.rs \
    's/        self.corrections.clear();/        let _ = \&self.corrections;/' "$cleared"
mutant clear-keeps-continuation-correction src/correction/mod.rs \
    's/            \&mut self.continuation,/            \&mut Corrections::new().continuation,/' "$cleared"

# --- the large tables on huge pages (src/huge_pages.rs) -------------------
huge='cargo test --release -p kiraly --lib huge_pages::tests'
mutant huge-page-advice-dropped src/huge_pages.rs \
    's/        libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE);/        let _ = (start, len);/' "$huge"
mutant huge-page-start-unaligned src/huge_pages.rs \
    's/let offset = (base.as_ptr() as usize).next_multiple_of(HUGE_PAGE) - base.as_ptr() as usize;/let offset = 0;/' "$huge"

mutant hash-parallel-range-lost src/tt/memory.rs \
    's/        for first in (0..items).step_by(per_thread) {/        for first in (per_thread..items).step_by(per_thread) {/' \
    'cargo test --release -p kiraly --lib tt::memory::tests::in_parallel_covers_every_item_once'

# --- bestmove 0000 only without a legal move (engine-tests/common/mod.rs) --
mutant panic-fallback-null-move src/threadpool.rs \
    's/(job.root.pos.legal_moves().first().copied(), None)/(None, None)/' \
    'cargo test --release --test reliability a_panicking_search_thread'

# --- datagen's results by colour (tools/datagen/tests/datagen.rs) ----------
colours='cargo test --release -p datagen --test datagen wins_are_scored_for_the_side_that_wins'
mutant datagen-adjudication-swapped tools/datagen/src/play.rs \
    's/break if win_streak > 0 {/break if win_streak < 0 {/' "$colours"
mutant datagen-black-score-unsigned tools/datagen/src/play.rs \
    's/Color::Black => -found.score,/Color::Black => found.score,/' "$colours"
mutant game-over-mate-swapped src/game.rs \
    's/return Some(GameResult::win_for(winner));/return Some(GameResult::win_for(!winner));/' "$colours"
mutant datagen-stats-results-swapped tools/datagen/src/stats.rs \
    's/GameResult::WhiteWins => 0,/GameResult::WhiteWins => 2,/; s/GameResult::BlackWins => 2,/GameResult::BlackWins => 0,/' \
    'cargo test --release -p datagen --test datagen self_play_writes_whole_legal_games_and_resumes'

# --- the trainer binary (tools/trainer/tests/binary.rs) --------------------
binary='cargo test --release -p trainer --test binary'
mutant trainer-init-ignored tools/trainer/src/main.rs \
    's/Some(path) => initial_params(path, shape)?,/Some(_) => Params::random(shape, cli.seed),/' "$binary"
mutant trainer-init-kind-swapped tools/trainer/src/main.rs \
    's/if bytes.starts_with(kiraly::nnue::network::MAGIC) {/if !bytes.starts_with(kiraly::nnue::network::MAGIC) {/' "$binary"
mutant trainer-validation-halved tools/trainer/src/main.rs \
    's/let held = (positions.len() as f64 \* cli.validation) as usize;/let held = (positions.len() as f64 * cli.validation \/ 2.0) as usize;/' "$binary"
mutant trainer-final-net-untrained tools/trainer/src/main.rs \
    's/let net = params.quantise();/let net = Params::random(shape, cli.seed).quantise();/' "$binary"
mutant trainer-checkpoint-not-written tools/trainer/src/train.rs \
    's/std::fs::write(&raw, params.to_bytes())/std::fs::write(\&raw, [0u8; 4])/' "$binary"

# --- genfens on a book (engine-tests/genfens.rs) ---------------------------
book='cargo test --release --test genfens openings_from_a_book'
mutant genfens-book-plies-default src/openings.rs 's/book_plies: 2,/book_plies: 1,/' "$book"
mutant genfens-book-plies-ignored src/openings.rs \
    's/Some(_) => self.config.book_plies,/Some(_) => 2,/' "$book"
mutant genfens-first-book-line-only src/openings.rs \
    's/let start = &starts\[rng.below(starts.len())\];/let start = \&starts[rng.below(starts.len()) * 0];/' "$book"

# --- net-file refusals (engine-tests/nnue.rs) ------------------------------
mutant net-output-weight-bound-loose src/nnue/network.rs \
    's/.any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)/.any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT + 1)/' \
    'cargo test --release --test nnue output_weights_beyond_the_bound_are_refused'
mutant net-output-weight-bound-tight src/nnue/network.rs \
    's/.any(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)/.any(|w| w.unsigned_abs() >= MAX_OUTPUT_WEIGHT)/' \
    'cargo test --release --test nnue output_weights_beyond_the_bound_are_refused'
mutant net-too-long-called-truncated src/nnue/network.rs 's/"too long"/"truncated"/' \
    'cargo test --release --test nnue eval_file_loads_or_keeps_the_current_net'
mutant net-hash-unchecked src/nnue/network.rs \
    's/if fnv1a(params) != hash {/if false \&\& fnv1a(params) != hash {/' \
    'cargo test --release --test nnue eval_file_loads_or_keeps_the_current_net'

# --- the net's vector kernels equal plain Rust (src/nnue/simd/) ------------
simd='cargo test --release -p kiraly --lib nnue::simd'
mutant simd-scalar-removes-by-adding src/nnue/simd/scalar.rs \
    's/v = v.wrapping_sub(r\[i\]);/v = v.wrapping_add(r[i]);/' "$simd"
mutant simd-sse2-removes-by-adding src/nnue/simd/sse2.rs \
    's/\*v = _mm_sub_epi16(\*v, w);/*v = _mm_add_epi16(*v, w);/' "$simd"
mutant simd-avx2-last-register-unstored src/nnue/simd/avx2.rs \
    's/for (k, v) in tile.iter().enumerate() {/for (k, v) in tile.iter().enumerate().take(TILE - 1) {/' "$simd"
mutant simd-avx2-dot-unclamped src/nnue/simd/avx2.rs \
    's/let x = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);/let x = _mm256_max_epi16(a, zero);/' "$simd"

# --- lazy accumulators equal a refresh (src/nnue/stack.rs) -----------------
lazy='cargo test --release -p kiraly --lib nnue::stack'
mutant stack-push-keeps-computed src/nnue/stack.rs \
    '/pub fn push_move/,/pub fn push_null/s/next.computed = \[false; 2\];/next.computed = [true; 2];/' "$lazy"
mutant stack-null-not-copied src/nnue/stack.rs \
    's/None => next.acc.values\[side\] = parent.values\[side\],/None => {}/' "$lazy"
mutant stack-king-view-change-not-rebuilt src/nnue/stack.rs \
    's/next.rebuilds = Some(mover);/next.rebuilds = None;/' "$lazy"

# --- the refresh cache equals a refresh (src/nnue/refresh_cache.rs) -------
cache='cargo test --release -p kiraly --lib nnue::'
mutant refresh-cache-keeps-the-old-board src/nnue/refresh_cache.rs \
    's/                \*cached = now;/                let _ = now;/' "$cache"
mutant refresh-cache-mirrorings-share-an-entry src/nnue/refresh_cache.rs \
    's/(view.perspective as usize \* 2 + usize::from(view.mirrored))/(view.perspective as usize * 2)/' "$cache"

# --- the net's evaluation around its raw output (engine-tests/nnue_eval.rs) -
nnue_eval='cargo test --release --test nnue_eval'
mutant nnue-dead-material-scored src/eval/net.rs \
    's/    if is_dead(pos) {/    if false \&\& is_dead(pos) {/' "$nnue_eval"
mutant nnue-no-clamp src/eval/net.rs \
    's/-crate::score::TB_WIN_BOUND + 1,/i32::MIN + 1,/; s/crate::score::TB_WIN_BOUND - 1,$/i32::MAX,/' "$nnue_eval"
mutant nnue-fade-one-ply-early src/eval/net.rs \
    's/raw \* halfmove_factor(pos.halfmoves()) \/ (100 - HALFMOVE_FREE)/raw * halfmove_factor(pos.halfmoves() + 1) \/ (100 - HALFMOVE_FREE)/' \
    "$nnue_eval"
mutant nnue-no-fade src/eval/net.rs \
    's/raw \* halfmove_factor(pos.halfmoves()) \/ (100 - HALFMOVE_FREE)/raw/' "$nnue_eval"

# --- extra threads work (engine-tests/threads.rs, cli_tools.rs) ------------
mutant helpers-idle src/threadpool.rs \
    's/let result = guarded_think(&mut searcher, &job);/let result: Option<SearchResult> = None;/' \
    'cargo test --release --test threads a_second_thread_searches_and_its_nodes_count'
mutant helper-nodes-uncounted src/search/mod.rs \
    's/\.fetch_add(self.counts.unflushed, Ordering::Relaxed);/.fetch_add(if self.thread_id == 0 { self.counts.unflushed } else { 0 }, Ordering::Relaxed);/' \
    'cargo test --release --test threads a_second_thread_searches_and_its_nodes_count'
mutant speedtest-one-thread src/main.rs 's/bench::run_timed(threads, ms)/bench::run_timed(1, ms)/' \
    'cargo test --release --test cli_tools speedtest_arguments_take_effect'
mutant speedtest-ms-ignored src/main.rs 's/bench::run_timed(threads, ms)/bench::run_timed(threads, 1)/' \
    'cargo test --release --test cli_tools speedtest_arguments_take_effect'

# --- the Windows test's skip (tools/test_release_skip.py) -------------------
mutant release-skip-passes-in-ci tools/release/test_windows.py 's/        if in_ci():/        if False:/' \
    "$py -m unittest tools/test_release_skip.py"
mutant release-wine-not-looked-for tools/release/test_windows.py \
    's/candidates = \[shutil.which("wine64"), shutil.which("wine")\]/candidates = [shutil.which("wine64")]/' \
    "$py -m unittest tools/test_release_skip.py"

# --- the release checks under Wine (tools/release/release_checks.py) -------
# Linux splits SyzygyPath at ':' either way; only the Windows binary, whose
# folders hold drive letters, shows a split that ignores the system.
mutant release-tb-path-split-at-colon src/tb.rs \
    's/for dir in std::env::split_paths(paths) {/for dir in paths.split(\x27:\x27).map(std::path::PathBuf::from) {/' \
    "tools/release/build.sh --binaries-only --os windows --levels x86-64 && $py tools/release/test_windows.py target/release-x86-64/x86_64-pc-windows-gnu/release/kiraly.exe"

# --- exchanges, stored scores and the side's clock -------------------------
see='cargo test --release -p kiraly --lib see::tests::exchange_values'
mutant see-rook-xrays-ignored src/see.rs \
    's/attackers |= rook_attacks(to, occupied) \& straight;/attackers |= Bitboard::EMPTY \& straight;/' "$see"
mutant see-king-takes-a-defended-piece src/see.rs \
    's/^                result ^= 1;$/                result ^= 0;/' "$see"
mutant tt-mate-distance-unadjusted src/score.rs \
    '0,/        score + ply as i32/s//        score/' \
    'cargo test --release -p kiraly --lib score::tests::table_scores_keep_their_distance'
mutant uci-mate-moves-off-by-one src/score.rs \
    's|format!("mate {}", (MATE - score + 1) / 2)|format!("mate {}", (MATE - score) / 2)|' \
    'cargo test --release -p kiraly --lib score::tests::mate_scores_format_in_moves'
mutant clock-of-the-other-side src/engine.rs \
    's/Color::White => (params.wtime, params.winc),/Color::White => (params.btime, params.binc),/' \
    'cargo test --release --test uci_protocol go_without_own_limits_and_bad_searchmoves'

# --- limits and printed values checked exactly (uci_protocol, uci_features, nnue_eval)
mutant node-limit-halved src/search/root.rs \
    's/self.counts.node_limit = ctx.limits.nodes.unwrap_or(u64::MAX);/self.counts.node_limit = ctx.limits.nodes.map(|n| n \/ 2).unwrap_or(u64::MAX);/' \
    'cargo test --release --test uci_protocol go_limits_are_kept'
mutant key-en-passant-always src/board.rs \
    's/pos.zobrist_hash(EnPassantMode::Legal)/pos.zobrist_hash(EnPassantMode::Always)/' \
    'cargo test --release --test uci_features d_prints_the_board_fen_and_key'
mutant eval-nnue-line-side-to-move src/eval/trace.rs \
    '/let white = |p: &Chess| {/,/};/s/            -stm/            stm/' \
    'cargo test --release --test nnue_eval the_eval_command_prints_the_evaluations_themselves'

# --- assertions that could not fail, made to (finding 14) -----------------
mutant name-without-version src/build_info.rs \
    '/pub const NAME/,/);/s/env!("CARGO_PKG_VERSION"),/"0.0.0",/' \
    'cargo test --release --test uci_protocol uci_handshake_declares_conventional_options'
mutant eval-in-use-ignores-setting src/engine.rs \
    's/let in_use = self.search_net().is_some();/let in_use = self.net.is_some();/' \
    'cargo test --release --test nnue use_nnue_switches_the_evaluation_the_search_uses'
mutant tuner-reports-no-progress tools/tuner/src/main.rs \
    's/"loss before {before:.7}, after {after:.7}/"loss before {before:.7}, after {before:.7}/' \
    'cargo test --release -p tuner --test tuner binary_round_trip_and_short_run'
mutant tuner-loss-order-follows-work-stealing tools/tuner/src/ordered_sum.rs \
    's/.map(|chunk| chunk.iter().map(&term).sum())/.map(|chunk| chunk.par_iter().map(\&term).sum())/' \
    'cargo test --release -p tuner --test tuner loss_and_gradient_do_not_depend_on_the_thread_count'
mutant suite-any-points-solve tools/suite.py \
    's/ok = ok and got == best/ok = ok and got > 0/' \
    "$py -m unittest tools.test_match.TestSuiteLogic"
mutant import-graph-counts-test-code tools/import_graph.py \
    's/if tokens\[i:i + 7\] == \["#", "\[", "cfg", "(", "test", ")", "\]"\]:/if False:/' \
    "$py -m unittest tools/test_import_graph.py"
mutant import-graph-sees-no-cycle tools/import_graph.py \
    's/return stack\[stack.index(n):\] + \[n\]/return None/' \
    "$py -m unittest tools/test_import_graph.py"
mutant import-graph-allows-long-files tools/import_graph.py \
    's/            if lines > limit:/            if lines > limit + 1:/' \
    "$py -m unittest tools/test_import_graph.py"

# --- timing measured by the engine's own clock or CPU time (finding 9) ------
mutant movetime-overhead-ignored src/time.rs \
    's/        .saturating_sub(overhead_ms)/        .saturating_sub(overhead_ms.min(10))/' \
    'cargo test --release --test uci_protocol options_take_effect_and_bad_values_keep_the_old_one'
mtg='cargo test --release -p kiraly --lib time::tests::moves_to_go_divides_the_usable_clock'
mutant moves-to-go-default-fixed src/time.rs \
    's/        .unwrap_or(params::moves_to_go() as u64)/        .unwrap_or(40)/' "$mtg"
mutant movestogo-ignored src/time.rs \
    's/^        .movestogo$/        .movestogo.filter(|_| false)/' "$mtg"
mutant movestogo-unbounded src/time.rs \
    's/        .clamp(1, 50);/        .clamp(1, 500);/' "$mtg"
mutant strength-budget-ignored src/search/root.rs \
    's/self.counts.node_limit = self.counts.node_limit.min(limit.nodes);/let _ = limit.nodes;/' \
    'cargo test --release --test uci_features limited_strength_plays_fast_legal_and_varied_moves'

# --- the checked profile and the tuning build (make test-checked) ----------
# An overflow that the release profile wraps silently (same values) and the
# checked profile's overflow checks catch: the release test passes it.
mutant rng-overflow-unchecked src/rng.rs \
    's/z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);/z = (z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9;/' \
    'cargo test --profile checked -p kiraly --lib rng'
mutant tune-parameter-not-set src/parameters.rs \
    's/values::VALUES\[i\].store(value, std::sync::atomic::Ordering::Relaxed);/let _ = (i, value);/' \
    'cargo test --profile checked -p kiraly --features tune --test tune'

# --- a match in parts added up (tools/test_match_parts.py) -----------------
parts="$py -m unittest tools/test_match_parts.py"
mutant match-parts-first-pairs-only tools/match_parts.py \
    's/\[a + b for a, b in zip(total\["pentanomial"\], p\["pentanomial"\])\]/[a + 0 * b for a, b in zip(total["pentanomial"], p["pentanomial"])]/' "$parts"
mutant match-parts-any-engines tools/match_parts.py \
    's/        elif (p\["first"\], p\["second"\]) != /        elif False and (p["first"], p["second"]) != /' "$parts"

# --- the SPSA tuner (tools/test_spsa.py; its OpenBench lines, tune.rs) -----
spsa_math="$py -m unittest tools.test_spsa.WorkedExample"
mutant spsa-update-sign tools/spsa.py \
    's/p\["value"\] + r_k \* c_k \* (wins - losses) \* flip/p["value"] - r_k * c_k * (wins - losses) * flip/' \
    "$spsa_math"
mutant spsa-c-decay-by-alpha tools/spsa.py \
    's/c_k = max(c \/ k \*\* gamma, MIN_INT_C)/c_k = max(c \/ k ** alpha, MIN_INT_C)/' "$spsa_math"
mutant spsa-a-without-big-a tools/spsa.py \
    's/a_k = a \/ (big_a + k) \*\* alpha/a_k = a \/ k ** alpha/' "$spsa_math"
mutant spsa-no-least-int-step tools/spsa.py 's/^MIN_INT_C = 0.5/MIN_INT_C = 0.0/' "$spsa_math"
mutant spsa-nearest-rounding tools/spsa.py 's/math.floor(up + u)/round(up)/' "$spsa_math"
mutant spsa-slice-forgets-match-args tools/spsa.py \
    's/    for key in ("engine", "tc", "nodes", "book", "hash", "match_args"):/    for key in ("engine", "tc", "nodes", "book"):/' \
    "$py -m unittest tools.test_spsa.Resume"
mutant spsa-plus-unclamped tools/spsa.py \
    's/plus\[p\["name"\]\] = int(clamp(math.floor(up + u), p\["min"\], p\["max"\]))/plus[p["name"]] = int(math.floor(up + u))/' \
    "$spsa_math"
mutant spsa-openbench-c-end-tenth tools/spsa.py \
    's/max((hi - lo) \/ 20, 1.0)/max((hi - lo) \/ 10, 1.0)/' \
    "$py -m unittest tools.test_spsa.OpenBenchInput"
mutant spsa-no-separators-in-literals tools/spsa.py \
    's/(?P<default>\[0-9\]\[0-9_\]\*)/(?P<default>[0-9]+)/' \
    'cargo test --profile checked -p kiraly --features tune --test tune spsa_openbench'
mutant spsa-apply-unclamped tools/spsa.py \
    's/new = int(clamp(round(values\[m\["name"\]\]), lo, hi))/new = int(round(values[m["name"]]))/' \
    "$py -m unittest tools.test_spsa.Apply"
mutant spsa-apply-drops-separators tools/spsa.py \
    's/return f"{value:_}" if "_" in like else str(value)/return str(value)/' \
    "$py -m unittest tools.test_spsa.Apply"
mutant spsa-openbench-values-misread tools/spsa.py \
    's/values\[name\] = float(value)/values[name] = float(value) + 1/' \
    "$py -m unittest tools.test_spsa.Apply"
mutant spsa-restarts-instead-of-resuming tools/spsa.py \
    's/^    if os.path.exists(args.state):/    if False:/' "$py -m unittest tools.test_spsa.Resume"
mutant spsa-state-saved-only-at-the-end tools/spsa.py \
    's/^            save_state(state, args.state)$/            pass/' \
    "$py -m unittest tools.test_spsa.Resume"
mutant spsa-flips-unseeded tools/spsa.py \
    's/rng = random.Random(f"{state\[.seed.\]}:{k}")/rng = random.Random()/' \
    "$py -m unittest tools.test_spsa.Resume"

# --- PGN games to training records (tools/datagen/src/pgn.rs) --------------
pgn='cargo test --release -p datagen --lib pgn::tests'
mutant pgn-mate-in-n-one-ply-short tools/datagen/src/pgn.rs \
    's/            MATE - (2 \* n - 1)/            MATE - 2 * n/' "$pgn"
mutant pgn-negative-score-positive tools/datagen/src/pgn.rs \
    's/            -cp as i32/            cp as i32/' "$pgn"
mutant pgn-white-win-read-as-black-win tools/datagen/src/pgn.rs \
    's/        "1-0" => Some(GameResult::WhiteWins),/        "1-0" => Some(GameResult::BlackWins),/' "$pgn"
mutant pgn-chess960-variant-ignored tools/datagen/src/pgn.rs \
    's/        v.contains("960") || v.contains("fischerandom")/        v.contains("9600") || v.contains("fischerandom")/' "$pgn"

# --- the match statistics every Elo figure comes from (tools/test_stats.py) -
stats="$py -m unittest tools.test_stats"
mutant stats-pairs-counted-as-games tools/stats.py \
    's/_estimate("pentanomial", PENTANOMIAL_SCORES, tuple(penta), 2.0)/_estimate("pentanomial", PENTANOMIAL_SCORES, tuple(penta), 1.0)/' "$stats"
mutant stats-error-bar-halved tools/stats.py \
    's|    stderr = math.sqrt(var / n)|    stderr = math.sqrt(var / n) / 2|' "$stats"
mutant stats-los-inverted tools/stats.py \
    's|        los = _normal_cdf((mu - 0.5) / stderr)|        los = _normal_cdf((0.5 - mu) / stderr)|' "$stats"
mutant stats-sprt-alpha-beta-swapped tools/stats.py \
    's|        self.upper = math.log((1.0 - beta) / alpha)|        self.upper = math.log((1.0 - alpha) / beta)|' "$stats"
mutant stats-elo-scale-natural-log tools/stats.py \
    's|    return -400.0 \* math.log10(1.0 / score - 1.0) + 0.0|    return -400.0 * math.log(1.0 / score - 1.0) + 0.0|' "$stats"

# --- Chess960 starts and the older text format (tools/datagen/src/) --------
c960='cargo test --release -p datagen --lib chess960::tests'
mutant chess960-knights-placed-in-the-other-order tools/datagen/src/chess960.rs \
    's/    place_on_nth_free(\&mut rank, second, Role::Knight);/    place_on_nth_free(\&mut rank, first, Role::Knight);/' "$c960"
mutant chess960-share-inverted tools/datagen/src/chess960.rs \
    's/    if unit(draw\[0\]) >= share {/    if unit(draw[0]) < share {/' "$c960"
text='cargo test --release -p datagen --lib text::tests'
mutant text-black-score-unsigned tools/datagen/src/text.rs \
    's/        Color::Black => -white_score,/        Color::Black => white_score,/' "$text"
mutant text-white-win-read-as-black-win tools/datagen/src/text.rs \
    's/        "1.0" | "1" => GameResult::WhiteWins,/        "1.0" | "1" => GameResult::BlackWins,/' "$text"

# --- a match's adjudication and failures (tools/test_match.py, mock engines)
fails="$py -m unittest tools.test_match.TestFailureHandling"
feats="$py -m unittest tools.test_match.TestMatchFeatures"
mutant match-flag-never-falls tools/match.py \
    's/                timed_out = clocks\[side\] < -a.timemargin/                timed_out = False/' "$fails"
mutant match-illegal-move-accepted tools/match.py \
    's/            if move is None or move not in board.legal_moves:/            if move is None:/' "$fails"
mutant match-resign-scored-for-the-resigner tools/match.py \
    's/                            result = "0-1" if side == chess.WHITE else "1-0"/                            result = "1-0" if side == chess.WHITE else "0-1"/' "$feats"
mutant match-draw-adjudicated-at-once tools/match.py \
    's/            if self.draw and draw_count >= 2 \* self.draw\["movecount"\]:/            if self.draw and draw_count >= 0:/' "$feats"

# --- the move-shown checker of match logs (tools/test_move_shown.py) -------
shown="$py -m unittest tools.test_move_shown"
mutant move-shown-bounds-count-as-exact tools/move_shown.py \
    's/    if "lowerbound" in words or "upperbound" in words:/    if False:/' "$shown"
mutant move-shown-any-multipv-line tools/move_shown.py \
    's/        return i + 1 < len(words) and words\[i + 1\] == "1"/        return i + 1 < len(words)/' "$shown"
mutant move-shown-mate-sign-dropped tools/move_shown.py \
    's/        score = f"+M{abs(value)}" if value > 0 else f"-M{abs(value)}"/        score = f"+M{abs(value)}"/' "$shown"

# --- a match's pair bookkeeping (tools/test_match.py) -----------------------
pairs="$py -m unittest tools.test_match.TestPairBookkeeping"
mutant match-pentanomial-reversed tools/match.py \
    's/            self.penta\[int(round(total \* 2))\] += 1/            self.penta[4 - int(round(total * 2))] += 1/' "$pairs"
mutant match-drawn-pair-counted-as-win-loss tools/match.py \
    's/                if lst\[0\] == 0.5:/                if lst[0] == 1.0:/' "$pairs"
mutant match-score-for-white tools/match.py \
    's/    return s if white_is_a else 1.0 - s/    return s/' "$pairs"

# --- the generator service (tools/test_selfplay.py, datagen's Chess960) ----
mutant match-never-holds-generator tools/match.py \
    's/selfplay.hold("match", clocked and not args.no_pause_generator)/selfplay.hold("match", False and clocked)/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_timed_work_holds_the_generator"
mutant datagen-chess960-flag-dropped tools/datagen/src/format.rs \
    's/out\[29\] = (VERSION << 4) | u8::from(chess960);/out[29] = VERSION << 4;/' \
    'cargo test --release -p datagen --test datagen chess960_games_round_trip_with_their_castling'
mutant selfplay-resume-build-unrecorded tools/selfplay.py \
    's/    if (meta.get("resumed_with") or \[meta\])\[-1\].get("datagen") != os.path.basename(datagen):/    if False:/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_service_lifecycle"
mutant selfplay-resumes-only-the-newest-file tools/selfplay.py \
    's/        data_file = matching\[-1\] if matching else None/        data_file = existing[-1] if matching and matching[-1] == existing[-1] else None/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_start_resumes_the_newest_file_with_its_settings"
mutant selfplay-snapshot-copies-a-cut-record tools/selfplay.py \
    's/    remaining = counter.offset/    remaining = os.path.getsize(source)/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_snapshot_copies_whole_games_only"
mutant selfplay-burst-parts-overfull tools/selfplay.py \
    's/            if out is None or parts\[-1\]\["bytes"\] + (end - start) > part_bytes:/            if out is None or parts[-1]["bytes"] > part_bytes:/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_burst_parts_import_and_no_resume"
mutant selfplay-burst-parts-over-64-mib tools/selfplay.py \
    's/^BURST_MAX_PARTS = 4$/BURST_MAX_PARTS = 5/' \
    "$py -m unittest tools.test_selfplay.BurstDefaults"
mutant selfplay-burst-file-resumed tools/selfplay.py \
    's/ and "burst" not in load_sidecar(f)\]/]/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_burst_parts_import_and_no_resume"
mutant selfplay-import-unchecked tools/selfplay.py \
    's/            if (hashlib.sha256(data).hexdigest() != part\["sha256"\] or counter.offset != len(data)/            if (False/' \
    "$py -m unittest tools.test_selfplay.SelfPlayService.test_burst_parts_import_and_no_resume"
# --- the profile-guided build (tools/pgo_build.sh) ---------------------------
mutant pgo-build-fails-without-profdata tools/pgo_build.sh \
    's/^    exit 0$/    exit 1/' \
    "$py -m unittest engine-tests.test_openbench.OpenBenchClient.test_build_without_llvm_profdata_is_plain"
# --- the generation recipe (tools/test_generation.py) ----------------------
mutant generation-lambda-changed tools/generation.py \
    's/^LAMBDA = 0.1$/LAMBDA = 0.25/' \
    "$py -m unittest tools/test_generation.py"
mutant generation-net-written-elsewhere tools/generation.py \
    's/"--out", os.path.join(args.out_dir, "nets", args.name),/"--out", os.path.join("nets", args.name),/' \
    "$py -m unittest tools.test_generation.TinyGeneration"
mutant generation-keep-unchecked tools/generation.py \
    's/    if check.returncode != 0:/    if False:/' \
    "$py -m unittest tools.test_generation.KeepCandidate"
# --- a commit's engine built (tools/test_build_commit.py) ------------------
mutant build-commit-worktree-left tools/build_commit.sh \
    's/^trap cleanup EXIT$/trap - EXIT/' \
    "$py -m unittest tools.test_build_commit"
# --- the root's moves: searchmoves and MultiPV (engine-tests/uci_features.rs)
mutant root-searchmoves-ignored src/search/root.rs \
    's/self.root.every_legal_move = legal.len() == legal_count;/self.root.every_legal_move = true;/' \
    'cargo test --release --test uci_features go_mate_and_searchmoves_follow_the_spec'
mutant root-multipv-lines-repeated src/search/node.rs \
    's/root_restricted = !self.root.every_legal_move || !self.root.excluded.is_empty();/root_restricted = !self.root.every_legal_move;/' \
    'cargo test --release --test uci_features multipv_reports_distinct_lines_best_first'
# --- the move played is the move shown (engine-tests/move_shown.rs) --------
mutant played-line-not-shown src/threadpool.rs \
    's/    show_played_line(searcher, &played, job, started_pondering);/    let _ = show_played_line;/' \
    'cargo test --release --test move_shown the_move_played_is_the_move_shown'
# --- gives_check on the bitboards (src/movepick/tests.rs) ------------------
gives='cargo test --release -p kiraly --lib movepick::tests::gives_check_agrees_with_playing_the_move'
mutant gives-check-no-discovered src/movegen/mod.rs \
    's/    (uncovered \& ours).any()$/    (uncovered \& ours).any() \&\& false/' "$gives"
mutant gives-check-promotion-ignored src/movegen/mod.rs \
    's/let direct = match promotion.unwrap_or(role) {/let direct = match role {/' "$gives"
mutant check-squares-no-discovered src/movegen/mod.rs \
    's/                    || (self.blockers.contains(from) \&\& !aligned(from, to, self.king))/                    || false/' "$gives"
mutant check-squares-pawn-side src/movegen/mod.rs \
    's/                pawn_attacks(!us, king),/                pawn_attacks(us, king),/' "$gives"
# --- the quiet scorer reads the search's entries (src/movepick/tests.rs) ----
scorer='cargo test --release -p kiraly --lib movepick::tests::quiet_scorer_reads_the_entries_the_search_updates'
mutant quiet-scorer-castling-to-the-king-square src/movepick/mod.rs \
    's/            Move::Castle { king, rook } => (Role::King, Some(king), rook),/            Move::Castle { king, rook: _ } => (Role::King, Some(king), king),/' "$scorer"
mutant quiet-scorer-threat-index-swapped src/movepick/mod.rs \
    's/        let threat = usize::from(from_attacked) \* 2 + usize::from(self.threats.contains(to));/        let threat = usize::from(from_attacked) + usize::from(self.threats.contains(to)) * 2;/' "$scorer"
mutant quiet-scorer-other-side-pieces src/movepick/mod.rs \
    's/            side_piece_base: usize::from(side.is_white()) \* 6 \* 64,/            side_piece_base: usize::from(!side.is_white()) * 6 * 64,/' "$scorer"
# --- the picker's skipped quiet stage keeps its order (src/movepick/tests.rs)
mutant skip-quiets-order-lost src/movepick/mod.rs \
    's/                            let m = self.select(self.moves.len());/                            let m = self.moves[self.next]; self.next += 1;/' \
    'cargo test --release -p kiraly --lib movepick::tests::skip_quiets_keeps_the_order'
# --- the pickers select the best score first (src/movepick/tests.rs) -------
best_first='cargo test --release -p kiraly --lib movepick::tests::each_stage_comes_best_score_first'
mutant select-best-worst-first src/movepick/mod.rs \
    's/        if score > best_score {/        if score < best_score {/' "$best_first"
mutant scored-noisy-table-move-unranked src/movepick/scored.rs \
    's/mvv_lva(m).map(|s| if tt_move.matches(m) { TT_MOVE } else { s })/mvv_lva(m)/' "$best_first"
# --- the net's input index from the view's precomputed parts (src/nnue/features.rs)
index='cargo test --release -p kiraly --lib nnue::features::tests::indices_follow_the_definition'
mutant view-flip-mirror-swapped src/nnue/features.rs \
    's/if mirrored { 7 } else { 0 },/if mirrored { 0 } else { 7 },/' "$index"
mutant view-flip-ranks-ignored src/nnue/features.rs \
    's/flip: (orient_rank(perspective, Square::A1) as u8) ^/flip: 0 ^/' "$index"
# --- a move's shape picks the columns an update applies (src/nnue/) --------
incremental='cargo test --release -p kiraly --lib nnue::accumulator::tests::incremental_updates_equal_a_refresh'
mutant delta-capture-as-quiet src/delta.rs \
    's/shape: Shape::Capture,/shape: Shape::Quiet,/' "$incremental"
mutant update-castle-rook-left src/nnue/accumulator.rs \
    's/&\[column(added\[0\]), column(added\[1\])\],/\&[column(added[0]), column(removed[1])],/' "$incremental"
lazy='cargo test --release -p kiraly --lib nnue::stack::tests'
mutant lazy-fast-path-one-side src/nnue/stack.rs \
    's/self.compute_from_parent(net, ply, \[true; 2\]);/self.compute_from_parent(net, ply, [true, false]);/' "$lazy"
# --- the quiet stage's generator (src/movegen/) ---------------------------
quiets='cargo test --release -p kiraly --lib movegen::tests::quiet_and_en_passant_moves_are_shakmatys'
mutant quiet-moves-order-swapped src/movegen/mod.rs \
    's/    for role in \[Role::Knight, Role::Bishop, Role::Rook, Role::Queen\] {/    for role in [Role::Knight, Role::Rook, Role::Bishop, Role::Queen] {/' "$quiets"
mutant quiet-moves-castle-into-check src/movegen/mod.rs \
    's/    if pos.king_attackers(king_to, !us, after).any() {/    if false \&\& pos.king_attackers(king_to, !us, after).any() {/' "$quiets"
mutant en-passant-captured-square src/movegen/mod.rs \
    's/        let captured = Square::from_coords(to.file(), from.rank());/        let captured = from;/' "$quiets"
# --- the incremental key, after moves and null moves (src/board.rs) ---------
keys='cargo test --release -p kiraly --lib board::tests::incremental_keys_equal_full_keys'
mutant key-castling-rights-ignored src/board.rs \
    's/key ^= Zobrist64::zobrist_for_castling_right(color, side).0;/key ^= 0;/' "$keys"
mutant key-child-en-passant-ignored src/board.rs \
    's/ ^ en_passant_key(\&self.pos) ^ en_passant_key(\&pos);/ ^ en_passant_key(\&self.pos);/' "$keys"
mutant key-after-capture-ignored src/board.rs \
    's/Shape::Capture => key(r0) ^ key(r1) ^ key(a0),/Shape::Capture => key(r0) ^ key(a0),/' \
    'cargo test --release -p kiraly --lib board::tests::key_after_is_the_child_key_for_plain_moves'
mutant key-after-null-turn-ignored src/board.rs \
    's/        self.key ^ turn_key()$/        self.key/' "$keys"
mutant null-key-en-passant-ignored src/board.rs \
    's/let key = self.key ^ turn_key() ^ en_passant_key(\&self.pos);/let key = self.key ^ turn_key();/' "$keys"
# --- the pawns noisy_moves visits (src/movegen/) -------------------------
noisy='cargo test --release -p kiraly --lib movegen::tests::matches_filtered_legal_moves_over_whole_trees'
mutant noisy-pawns-white-right-captures-skipped src/movegen/mod.rs \
    's/                | ((theirs \& not_a) >> 9)$/                | 0/' "$noisy"
mutant noisy-pawns-black-left-captures-skipped src/movegen/mod.rs \
    's/            ((theirs \& not_h) << 9)$/            0/' "$noisy"
mutant noisy-pawns-black-promotions-skipped src/movegen/mod.rs \
    's/                | ((empty \& Bitboard::from_rank(Rank::First).0) << 8)/                | 0/' "$noisy"
# --- move legality on the bitboards (src/movegen/) ------------------------
legal='cargo test --release -p kiraly --lib movegen::tests::is_legal_agrees_with_shakmaty'
mutant legal-pin-ignored src/movegen/mod.rs \
    's/        \&\& (!pinned_pieces(pos, king).contains(from) || aligned(from, to, king))/        \&\& true/' "$legal"
mutant legal-double-step-through-piece src/movegen/mod.rs \
    's/                    \&\& from.offset(up).is_some_and(|mid| !occupied.contains(mid))/                    \&\& true/' "$legal"
mutant legal-king-into-attack src/movegen/mod.rs \
    's/                \&\& board.attacks_to(to, !us, occupied.without(from)).is_empty();/;/' "$legal"
mutant legal-king-steps-back-along-the-check src/movegen/mod.rs \
    's/occupied.without(from)).is_empty();/occupied).is_empty();/' "$legal"
mutant legal-check-left-unanswered src/movegen/mod.rs \
    's/        Some(checker) => to == checker || between(king, checker).contains(to),/        Some(_) => true,/' "$legal"
mutant legal-double-check-answered src/movegen/mod.rs \
    's/        None => false,/        None => true,/' "$legal"
# --- the correction tables (src/correction/) --------------------------------
corr='cargo test --release -p kiraly --lib correction::'
mutant correction-depth-unweighted src/correction/table.rs \
    's/let weight = (depth + 1).clamp(1, MAX_WEIGHT);/let weight = MAX_WEIGHT;/' \
    "${corr}table::tests::entries_follow_results_and_stay_bounded"
mutant correction-non-pawn-with-their-king src/correction/keys.rs \
    's/let ours = board.by_color(colour).0;/let ours = board.by_color(colour).0 | board.kings().0;/' \
    "${corr}keys::tests::each_key_depends_on_its_pieces_only"
mutant correction-kinds-share-a-constant src/correction/keys.rs \
    's/folded_multiply(kinds\[k\] \& ours, constants\[k\])/folded_multiply(kinds[k] \& ours, constants[0])/' \
    "${corr}keys::tests::keys_tell_roles_colours_and_sides_apart"
mutant correction-continuation-moves-swapped src/correction/keys.rs \
    's/previous\[1\].unwrap_or(PIECE_TO) \* PIECE_TO + last/last * PIECE_TO + previous[1].unwrap_or(0)/' \
    "${corr}keys::tests::continuation_key_is_the_last_two_moves"
mutant correction-continuation-term-dropped src/correction/mod.rs \
    's/+ params::corr_continuation_weight_pct() \* continuation;/;/' \
    "${corr}tests::the_correction_is_the_weighted_sum_of_the_tables"
mutant correction-black-pieces-not-taught src/correction/mod.rs \
    's/self.non_pawn\[0\].update(keys.non_pawn\[0\], depth, diff);//' \
    "${corr}tests::an_update_moves_every_table_of_the_position"
# --- late-move reductions in 1/1024 ply (src/search/lmr.rs) ----------------
lmr='cargo test --release -p kiraly --lib search::lmr::tests::'
mutant lmr-table-shrinks-with-move-count src/search/lmr.rs \
    's/let logs = (depth as f64).ln() \* (searched as f64).ln();/let logs = (depth as f64).ln() * (64.0 \/ searched as f64).ln();/' \
    "${lmr}base_reductions_grow_with_depth_and_move_count"
mutant lmr-captures-use-the-quiet-table src/search/lmr.rs \
    's/let (base, divisor_pct) = if quiet {/let (base, divisor_pct) = if true {/' \
    "${lmr}captures_are_reduced_less_than_quiet_moves"
mutant lmr-negative-reduction-extends src/search/lmr.rs \
    's/(new_depth - reduction \/ ONE_PLY).clamp(new_depth.min(1), new_depth)/(new_depth - reduction \/ ONE_PLY).max(1)/' \
    "${lmr}reduced_depth_rounds_down_and_stays_within_one_ply_and_new_depth"
mutant lmr-horizon-move-lifted-to-one-ply src/search/lmr.rs \
    's/(new_depth - reduction \/ ONE_PLY).clamp(new_depth.min(1), new_depth)/(new_depth - reduction \/ ONE_PLY).clamp(1, new_depth.max(1))/' \
    "${lmr}reduced_depth_rounds_down_and_stays_within_one_ply_and_new_depth"
mutant lmr-research-never-deeper src/search/lmr.rs \
    's/        new_depth + 1$/        new_depth/' \
    "${lmr}research_goes_deeper_for_a_wide_margin_and_shallower_for_a_narrow_one"
mutant lmr-research-deeper-than-the-node src/search/lmr.rs \
    's/    planned.min(depth)$/    planned/' \
    "${lmr}research_goes_deeper_for_a_wide_margin_and_shallower_for_a_narrow_one"
# --- aspiration windows (src/search/aspiration.rs, issue #37) ---------------
asp='cargo test --release -p kiraly --lib search::aspiration::tests::'
mutant aspiration-width-ignores-the-score src/search/aspiration.rs \
    's/params::aspiration_delta() + previous \* previous \/ params::aspiration_score_div()/params::aspiration_delta()/' \
    "${asp}the_first_window_grows_with_the_previous_score"
mutant aspiration-fail-high-at-full-depth src/search/aspiration.rs \
    's/(depth - self.fail_highs).max(1)/depth/' \
    "${asp}each_fail_high_in_a_row_searches_a_ply_shallower_until_a_fail_low"
mutant aspiration-fail-high-below-one-ply src/search/aspiration.rs \
    's/(depth - self.fail_highs).max(1)/(depth - self.fail_highs).max(0)/' \
    "${asp}each_fail_high_in_a_row_searches_a_ply_shallower_until_a_fail_low"
mutant aspiration-fail-low-stays-shallow src/search/aspiration.rs \
    's/            self.fail_highs = 0;//' \
    "${asp}each_fail_high_in_a_row_searches_a_ply_shallower_until_a_fail_low"
mutant aspiration-fail-low-keeps-beta src/search/aspiration.rs \
    's/self.beta = (self.alpha + self.beta) \/ 2;/self.beta = self.beta;/' \
    "${asp}a_fail_low_moves_the_window_down_and_widens_it"
mutant aspiration-never-opens src/search/aspiration.rs \
    's/if self.delta > params::aspiration_max_delta() {/if self.delta > i32::MAX \/ 2 {/' \
    "${asp}a_window_wider_than_the_limit_opens_fully"
# --- singular extension's depths (src/search/singular.rs, issue #37) -------
sing='cargo test --release -p kiraly --lib search::singular::tests::'
mutant singular-never-double src/search/singular.rs \
    's/} else if score < singular_beta - params::singular_double_margin() {/} else if false {/' \
    "${sing}a_move_far_ahead_of_the_rest_is_extended_further"
mutant singular-triple-for-captures src/search/singular.rs \
    's/} else if quiet \&\& score < singular_beta/} else if score < singular_beta/' \
    "${sing}a_move_far_ahead_of_the_rest_is_extended_further"
mutant singular-multi-limit-ignored src/search/singular.rs \
    's/if pv_node || i32::from(multi_extensions) >= params::singular_multi_limit() {/if pv_node {/' \
    "${sing}pv_nodes_and_lines_at_the_limit_extend_by_one_ply"
mutant singular-pv-extended-further src/search/singular.rs \
    's/if pv_node || i32::from(multi_extensions)/if i32::from(multi_extensions)/' \
    "${sing}pv_nodes_and_lines_at_the_limit_extend_by_one_ply"
mutant singular-no-negative-extension src/search/singular.rs \
    's/^        -2$/        0/' \
    "${sing}a_table_move_that_is_not_alone_is_searched_shallower"
mutant singular-cut-node-not-shallower src/search/singular.rs \
    's/    } else if cut_node {/    } else if false {/' \
    "${sing}a_table_move_that_is_not_alone_is_searched_shallower"
# --- null-move pruning's margins (src/search/pruning.rs, issue #37) -------
nmp='cargo test --release -p kiraly --lib search::pruning::tests::null_move_asks_more_where_a_cutoff_is_less_likely'
mutant null-move-all-nodes-free src/search/pruning.rs \
    's/    if expect == Expect::All {/    if expect == Expect::Cut {/' "$nmp"
mutant null-move-improving-ignored src/search/pruning.rs \
    's/    if !improving {/    if false {/' "$nmp"
# --- the quiet histories and history pruning (issue #37) --------------------
mutant continuation-three-plies-back src/stack.rs \
    's/pub const CONTINUATION_PLIES: \[usize; 3\] = \[1, 2, 4\];/pub const CONTINUATION_PLIES: [usize; 3] = [1, 2, 3];/' \
    'cargo test --release -p kiraly --lib stack::tests::continuation_moves_skip_null_moves'
mutant continuation-looks-past-a-null-move src/stack.rs \
    's/CONTINUATION_PLIES.map(|back| self.back(ply, back).played)/CONTINUATION_PLIES.map(|back| self.back(ply, back).played.or(self.back(ply, back - 1).played))/' \
    'cargo test --release -p kiraly --lib stack::tests::continuation_moves_skip_null_moves'
threat_slots='cargo test --release -p kiraly --lib history::tests::butterfly_entries_tell_attacked_from_and_to_squares_apart'
mutant butterfly-threats-ignored src/history.rs \
    's/let threat = usize::from(from_attacked) \* 2 + usize::from(to_attacked);/let threat = 0;/' "$threat_slots"
mutant butterfly-to-threat-ignored src/history.rs \
    's/let threat = usize::from(from_attacked) \* 2 + usize::from(to_attacked);/let threat = usize::from(from_attacked) * 2;/' "$threat_slots"
mutant butterfly-from-threat-read-at-to src/history.rs \
    's/let from_attacked = from.is_some_and(|s| threats.contains(s));/let from_attacked = threats.contains(m.to());/' "$threat_slots"
mutant butterfly-age-shifts src/history.rs \
    's|            \*v /= 2;|            *v >>= 1;|' "$threat_slots"
mutant butterfly-age-skipped src/history.rs \
    's|            \*v /= 2;|            *v /= 1;|' "$threat_slots"
threat_squares='cargo test --release -p kiraly --lib movepick::tests::threats_are_every_square_the_opponent_attacks'
mutant threats-pawns-the-wrong-way src/movegen/mod.rs \
    's/Color::White => west.shift(7) | east.shift(9),/Color::White => west.shift(-9) | east.shift(-7),/' "$threat_squares"
mutant threats-pawn-files-swapped src/movegen/mod.rs \
    's/pawns \& !Bitboard::from_file(File::A),/pawns \& !Bitboard::from_file(File::H),/' "$threat_squares"
mutant threats-without-the-king src/movegen/mod.rs \
    's/attacked |= king_attacks(king);/let _ = king;/' "$threat_squares"
quiet_score='cargo test --release -p kiraly --lib movepick::tests::quiet_score_sums_the_histories_of_the_node'
mutant quiet-score-four-plies-back-dropped src/movepick/mod.rs \
    's/        score + i32::from(four\[piece_to\]) \* params::cont_hist_4_order_pct() \/ 100/        score/' "$quiet_score"
mutant quiet-score-threats-ignored src/movepick/mod.rs \
    's/            threats,$/            threats: Bitboard::EMPTY,/' "$quiet_score"
reward='cargo test --release -p kiraly --lib search::rewards::tests::a_quiet_cutoff_teaches_each_history_under_the_node_key'
mutant reward-four-plies-back-full-bonus src/search/rewards.rs \
    's/continuation_bonus(k, bonus),/bonus,/' "$reward"
mutant reward-share-at-the-wrong-ply src/search/rewards.rs \
    's/if CONTINUATION_PLIES\[k\] == 4 {/if CONTINUATION_PLIES[k] == 2 {/' "$reward"
mutant reward-threats-ignored src/search/rewards.rs \
    's/self.tables.butterfly.update(white, key.threats, m, bonus);/self.tables.butterfly.update(white, Bitboard::EMPTY, m, bonus);/' "$reward"
hist_prune='cargo test --release -p kiraly --lib search::move_pruning::tests::history_prunes_below_the_margin_per_ply'
mutant history-pruning-at-any-depth src/search/move_pruning.rs \
    's/depth <= params::hist_prune_max_depth() \&\& history/history/' "$hist_prune"
mutant history-pruning-margin-not-per-ply src/search/move_pruning.rs \
    's/history < -params::hist_prune_margin() \* depth/history < -params::hist_prune_margin()/' "$hist_prune"
mutant history-pruning-at-the-margin src/search/move_pruning.rs \
    's/history < -params::hist_prune_margin() \* depth/history <= -params::hist_prune_margin() * depth/' "$hist_prune"
# --- the PV flag of table entries (src/tt.rs) --------------------------------
mutant tt-pv-flag-lost src/tt.rs \
    's/pv: data \& PV_BIT != 0,/pv: false,/' \
    'cargo test --release -p kiraly --lib tt::tests::store_and_probe_round_trip'
# --- a stopped search visits no more nodes (src/search/mod.rs) -------------
mutant visit-counts-after-stop src/search/mod.rs \
    '/fn visit(/,/^    }/s/        if self.counts.stopped {/        if false \&\& self.counts.stopped {/' \
    'cargo test --release -p kiraly --lib search::tests::a_node_limit_is_never_passed'

# --- Clear Hash empties the table (src/engine.rs) ----------------------------
mutant clear-hash-ignored src/engine.rs \
    's/OptionChange::ClearHash => self.clear_tt(),/OptionChange::ClearHash => {}/' \
    'cargo test --release --test uci_protocol clear_hash_empties_the_table'

# --- what a GUI reads: info figures, WDL, FEN, perft, options, clocks, strength,
# --- and the hand-crafted endgame scaling of UCI_LimitStrength
wdl='cargo test --release -p kiraly --lib wdl::tests'
mutant wdl-loss-sign-flipped src/wdl.rs \
    's|let loss = 1.0 / (1.0 + ((a + s) / b).exp());|let loss = 1.0 / (1.0 + ((a - s) / b).exp());|' "$wdl"
mutant wdl-queens-uncounted src/wdl.rs \
    's/+ 9 \* b.queens().count())/+ 0 * b.queens().count())/' "$wdl"
mutant wdl-shown-for-the-other-side src/search/report.rs \
    's/crate::wdl::wdl(score, material);/crate::wdl::wdl(-score, material);/' \
    'cargo test --release --test uci_features show_wdl_adds_win_draw_loss_per_mille'
mutant info-nps-per-millisecond src/search/report.rs \
    's|let nps = nodes \* 1000 / ms.max(1);|let nps = nodes / ms.max(1);|' \
    'cargo test --release --test uci_protocol finds_mate_in_one'
mutant info-seldepth-below-depth src/search/report.rs \
    's/seldepth.max(depth as usize),/seldepth.min(depth as usize - 1),/' \
    'cargo test --release --test uci_protocol finds_mate_in_one'
mutant fen-impossible-check-refused src/fen.rs \
    's/        .or_else(|e| e.ignore_impossible_check())/        .or_else(Err)/' \
    'cargo test --release --test uci_protocol unreachable_positions_are_accepted_and_impossible_ones_refused'
mutant fen-nine-pawns-refused src/fen.rs \
    's/        .or_else(|e| e.ignore_too_much_material())/        .or_else(Err)/' \
    'cargo test --release --test uci_protocol unreachable_positions_are_accepted_and_impossible_ones_refused'
opts='cargo test --release -p kiraly --lib options::tests'
mutant options-names-case-sensitive src/options.rs \
    's/let is = |n: \&str| name.eq_ignore_ascii_case(n);/let is = |n: \&str| name == n;/' "$opts"
mutant options-range-end-refused src/options.rs \
    's/Ok(v) if v >= min as i128 \&\& v <= max as i128 => Ok(v as u64),/Ok(v) if v >= min as i128 \&\& v < max as i128 => Ok(v as u64),/' "$opts"
mutant options-check-value-case-sensitive src/options.rs \
    's/match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {/match value.map(|v| v.trim().to_string()).as_deref() {/' "$opts"
clocks='cargo test --release -p kiraly --lib uci::tests::negative_clock_counts_as_zero'
mutant uci-negative-clock-refused src/uci.rs \
    's/        Ok(n) if n < 0 => Some(0),/        Ok(n) if n < 0 => None,/' "$clocks"
mutant uci-fractional-clock-refused src/uci.rs \
    's/            let f: f64 = text.parse().ok()?;/            let f: f64 = text.parse::<f64>().ok().filter(|_| false)?;/' "$clocks"
drawn='cargo test --release --test eval drawn_material_is_zero'
mutant endgame-lone-minor-not-drawn src/eval/endgame.rs \
    's/        if points <= 3 {/        if points < 3 {/' "$drawn"
mutant endgame-two-knights-not-drawn src/eval/endgame.rs \
    's/        if strong.knights == 2 \&\& points == 6 {/        if strong.knights == 3 \&\& points == 6 {/' "$drawn"
mutant endgame-wrong-bishop-colour src/eval/endgame.rs \
    's/if strong.bishops \& corner_colour == 0 \&\& weak_king/if strong.bishops \& corner_colour != 0 \&\& weak_king/' "$drawn"
mutant perft-bulk-count-a-ply-early src/perft.rs \
    's/    if depth == 1 {/    if depth == 2 {/' \
    'cargo test --release --test perft divide_sums_to_total_and_names_moves'
mutant strength-elo-ignored src/engine.rs \
    's/.then(|| StrengthLimit::new(self.options.elo));/.then(|| StrengthLimit::new(2850));/' \
    'cargo test --release --test uci_features limited_strength_plays_fast_legal_and_varied_moves'
mutant strength-loss-cap-ignored src/strength.rs \
    's/if loss > f64::from(self.max_loss) {/if loss > f64::MAX {/' \
    'cargo test --release -p kiraly --lib strength::tests'

if [ "${1:-}" = --check ]; then
    # Fast: every edit still applies to this tree (no build, no test).
    stale=0
    for i in "${!names[@]}"; do
        if [ ! -f "${files[$i]}" ] || sed -e "${edits[$i]}" "${files[$i]}" | cmp -s - "${files[$i]}"; then
            echo "STALE ${names[$i]}: the edit no longer changes ${files[$i]}"
            stale=$((stale + 1))
        fi
    done
    echo "mutants.sh --check: ${#names[@]} mutants, $stale stale"
    [ "$stale" = 0 ]
    exit
fi
if [ "${1:-}" = --list ]; then
    for i in "${!names[@]}"; do
        printf '%s\t%s\t%s\n' "${names[$i]}" "${files[$i]}" "${tests[$i]}"
    done
    exit 0
fi

selected=()
if [ $# -eq 0 ]; then
    selected=("${!names[@]}")
else
    for want in "$@"; do
        found=
        for i in "${!names[@]}"; do
            [ "${names[$i]}" = "$want" ] && selected+=("$i") && found=1
        done
        [ -n "$found" ] || { echo "no mutant named $want (--list names them)" >&2; exit 2; }
    done
fi

mkdir -p "$target" || exit 2
# One run at a time per worktree: runs share its scratch builds (target).
exec 9>"$target/.lock"
flock -n 9 || { echo "another tools/mutants.sh run holds $target/.lock" >&2; exit 2; }
# A folder of its own per run: two worktrees checking mutants at once must
# not empty each other's scratch tree.
tree=$(mktemp -d "${TMPDIR:-/tmp}/kiraly-mutants.XXXXXX") || exit 2
trap 'rm -rf "$tree"' EXIT
git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$tree" || exit 2

row() { rows+=("$(printf '%-34s %-8s %s' "$1" "$2" "$3")"); }
rows=() missed=0
# The Python tests import their neighbours in tools/ and play with the
# engine, datagen and the trainer: all are built from the scratch tree (a
# Python mutant leaves the Rust code as it is) and named to the tests.
export PYTHONPATH=$tree/tools
export MATCH_ENGINE=$target/release/kiraly DATAGEN_BIN=$target/release/datagen \
    TRAINER_BIN=$target/release/trainer
for i in "${selected[@]}"; do
    case ${tests[$i]} in
        *unittest*)
            (cd "$tree" && CARGO_TARGET_DIR=$target cargo build --release -p kiraly -p datagen -p trainer) \
                >"$target/python-test-binaries.log" 2>&1 ||
                { echo "mutants.sh: cannot build the engine, datagen and the trainer for the Python tests" >&2; exit 2; }
            break ;;
    esac
done
# A log with one of these failed before its test ran.
cannot_run='ModuleNotFoundError\|ImportError\|not found or not executable\|binary .* not found'

for i in "${selected[@]}"; do
    name=${names[$i]} file=$tree/${files[$i]}
    log=$target/$name.log
    if [ ! -f "$file" ]; then
        row "$name" STALE "no file ${files[$i]}"
        missed=$((missed + 1))
        continue
    fi
    cp "$file" "$file.orig"
    sed -i -e "${edits[$i]}" "$file"
    if cmp -s "$file" "$file.orig"; then
        row "$name" STALE "the edit no longer changes ${files[$i]}"
        missed=$((missed + 1))
    else
        echo "== $name: ${tests[$i]} (log: $log)" >&2
        (cd "$tree" && CARGO_TARGET_DIR=$target timeout "$timeout_s" bash -c "${tests[$i]}") >"$log" 2>&1
        rc=$?
        if grep -q '^error\[E[0-9]*\]\|^error: could not compile' "$log"; then
            row "$name" NOBUILD "${tests[$i]}"
            missed=$((missed + 1))
        elif grep -q "$cannot_run" "$log"; then
            # The test failed before it tested anything: not a catch.
            row "$name" NORUN "${tests[$i]}"
            missed=$((missed + 1))
        elif [ $rc -ne 0 ]; then
            row "$name" caught "${tests[$i]}"
        else
            row "$name" MISSED "${tests[$i]}"
            missed=$((missed + 1))
        fi
    fi
    mv "$file.orig" "$file"
done

printf '%-34s %-8s %s\n' mutant result test
printf '%s\n' "${rows[@]}"
echo "$((${#selected[@]} - missed)) of ${#selected[@]} caught (logs in $target)"
[ $missed -eq 0 ]
