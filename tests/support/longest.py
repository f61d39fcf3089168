"""The suite's longest tests and their seconds (call and setup, one xdist worker of `make test` on a quiet machine,
2026-11-28 12:27, wall time per test), for tests/conftest.py to start them first: worksteal cannot split a test, so
a long one left for the end keeps one worker busy while the other idles. A test not named here counts by its
marker (inductor, then slow, then the rest); a wrong figure costs time, never a result."""

from __future__ import annotations

# test names, with the parameters where one of them is the long one
SECONDS = {
    # the perf-hint run first: the fast-mode run starts from a copy of the inductor cache it fills
    "test_perf_hints_on_a_fresh_inductor_cache": 19.4,
    "test_eager_fast_mode_finds_what_inductor_finds": 10.8,
    "test_three_runs_give_one_patch_and_each_trial_is_told_on_a_redirected_stderr": 16.5,
    "test_a_config_switch_a_compile_keyword_and_rewrites_are_measured_combined_and_applied": 12.2,
    "test_timeout_kills_the_target_and_still_reports": 10.2,
    "test_processes_the_script_starts": 10.0,
    "test_fixes_are_run_live_and_a_kept_capture_reports_their_effects_again": 9.5,
    "test_a_patch_of_the_user_s_is_measured_as_ours_are": 9.4,
    "test_a_program_forked_warm_compiles_and_prints_what_it_does_cold": 8.9,
    "test_live_ddp_sample_reports_the_divergence": 8.6,
    "test_the_scorer_runs_doctor_fix_on_one_case": 7.8,
    "test_recording_again_finds_what_the_checked_in_capture_says[library_logging.py]": 7.1,
    "test_observe_into_dumps_without_changing_the_program": 6.8,
    "test_settings_made_before_import_torch_take_effect": 6.8,
    "test_timeout_stops_every_rank": 8.8,
    "test_a_program_without_anything_to_fix_says_so": 6.6,
    "test_missing_function_and_bad_inputs": 6.3,
    "test_fixture_marker_and_session_report": 5.4,
}


def seconds(name: str) -> float:
    """The test's measured seconds, by its name (`test_x[param]`, else `test_x`); 0 where none was measured."""
    return SECONDS.get(name, SECONDS.get(name.split("[", 1)[0], 0.0))
