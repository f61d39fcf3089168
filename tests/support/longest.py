"""The suite's longest tests and their seconds (call and setup, one xdist worker of `make test` on a quiet machine,
2026-11-28, `pytest --durations`), for tests/conftest.py to start them first: worksteal cannot split a test, so a
long one left for the end keeps one worker busy while the other idles. A test not named here counts by its
marker (inductor, then slow, then the rest); a wrong figure costs time, never a result."""

from __future__ import annotations

# test names, with the parameters where one of them is the long one
SECONDS = {
    # the perf-hint run first: the fast-mode run starts from a copy of the inductor cache it fills
    "test_perf_hints_on_a_fresh_inductor_cache": 16.0,
    "test_eager_fast_mode_finds_what_inductor_finds": 12.0,
    "test_three_runs_give_one_patch_and_each_trial_is_told_on_a_redirected_stderr": 22.0,
    "test_a_config_switch_a_compile_keyword_and_rewrites_are_measured_combined_and_applied": 14.5,
    "test_fixes_are_run_live_and_a_kept_capture_reports_their_effects_again": 12.9,
    "test_a_patch_of_the_user_s_is_measured_as_ours_are": 12.0,
    "test_timeout_stops_every_rank": 11.2,
    "test_a_program_forked_warm_compiles_and_prints_what_it_does_cold": 11.0,
    "test_timeout_kills_the_target_and_still_reports": 10.8,
    "test_processes_the_script_starts": 10.2,
    "test_missing_function_and_bad_inputs": 10.1,
    "test_samples_behave_as_in_a_plain_run": 9.9,
    "test_the_scorer_runs_doctor_fix_on_one_case": 9.6,
    "test_live_ddp_sample_reports_the_divergence": 9.3,
    "test_recording_again_finds_what_the_checked_in_capture_says[library_logging.py]": 8.4,
    "test_settings_made_before_import_torch_take_effect": 7.1,
    "test_the_capture_never_changes_what_dynamo_compiles": 6.5,
    "test_pyproject_config_gives_targets_and_flags_override_it": 5.7,
    "test_fixture_marker_and_session_report": 5.7,
}


def seconds(name: str) -> float:
    """The test's measured seconds, by its name (`test_x[param]`, else `test_x`); 0 where none was measured."""
    return SECONDS.get(name, SECONDS.get(name.split("[", 1)[0], 0.0))
