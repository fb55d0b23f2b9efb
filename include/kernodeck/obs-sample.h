/*
 * obs-sample.h - the tree of sample.yaml (the sample stage's observations):
 * each key its type, getter name and path.  Getters: obs_sample_NAME(obs).
 * Keep in step with what the stage writes; tests/helpers/obs-keys (run by
 * tests/integration/demo-headless.sh and demo-training.sh) proves every key
 * not marked KD_OBS_OPT is there after the demos' checks (the keys below
 * resume after the training demo's).
 *
 *   entry_point_error, interpreter_missing, outputs_error   why the entry
 *                         point was not run: in those runs only entry_point,
 *                         argv, cwd and resume are written, so the keys
 *                         without KD_OBS_OPT are those of a run of the entry point
 *   entry_point, argv, cwd, log   what was run, where, and its log
 *   run                   started (or error), ended, exit_code, timed_out,
 *                         cancelled, seconds
 *   failure               when it did not exit 0: KD_OBS_SAMPLE_FAILURE
 *   step_reached          the last step announced (KD_STEP)
 *   moved_aside           from, to: the previous outputs moved aside
 *   outputs               folder, expected[], files[] (KD_OBS_SAMPLE_FILE)
 *   ids                   declared; then error, or output, input, rows,
 *                         missing, extra, duplicates, same_order, ok, order,
 *                         first_missing/extra/duplicate/misplaced
 *   comparison            error (and rule_declared), or example, rule, pass,
 *                         compared, out_of_tolerance, max_abs_error,
 *                         max_rel_error (null when not finite), metric and
 *                         worst_row (rule metric), worst, rule_digest,
 *                         rule_canonical, shown
 *   resume                the resume check (goal training-trajectory, or a
 *                         resume: section; src/features/resume.c): required_missing,
 *                         or declaration_error, or steps, interrupt_at,
 *                         interrupt, compare[], rule, runs (uninterrupted,
 *                         interrupted, resumed: KD_OBS_SAMPLE_RUN),
 *                         checkpoint, not_run (why the exercise stopped
 *                         before the resumed run: what needs it is absent),
 *                         resumed_from (the step the resumed run starts
 *                         after; step_unknown when a single checkpoint file
 *                         records no step counter),
 *                         inventory (kinds[]: KD_OBS_SAMPLE_KIND), metrics
 *                         (uninterrupted, resumed: KD_OBS_SAMPLE_METRICS),
 *                         trajectory (KD_OBS_SAMPLE_TRAJ), plot, final
 *                         (differing[]: KD_OBS_SAMPLE_TENSOR),
 *                         reference (KD_OBS_SAMPLE_TRAJ), reference_rule
 *
 * A key below a KD_OBS_OPT key is required only where that key is there.
 */
#ifndef KD_OBS_SAMPLE_H
#define KD_OBS_SAMPLE_H

#include "kernodeck/obs.h"

#define KD_OBS_SAMPLE(X) \
	X(str, entry_point_error, "entry_point_error", KD_OBS_OPT) \
	X(str, interpreter_missing, "interpreter_missing", KD_OBS_OPT) \
	X(str, outputs_error, "outputs_error", KD_OBS_OPT) \
	X(str, log, "log", 0) \
	X(obj, run, "run", 0) \
	X(bool, run_started, "run.started", 0) \
	X(str, run_error, "run.error", KD_OBS_OPT) \
	X(str, run_ended, "run.ended", KD_OBS_OPT) \
	X(num, run_seconds, "run.seconds", KD_OBS_OPT) \
	X(bool, run_timed_out, "run.timed_out", KD_OBS_OPT) \
	X(bool, run_memory_limit_hit, "run.memory_limit_hit", KD_OBS_OPT) \
	X(obj, failure, "failure", KD_OBS_OPT) \
	X(str, step_reached, "step_reached", KD_OBS_OPT) \
	X(obj, moved_aside, "moved_aside", KD_OBS_OPT) \
	X(str, moved_aside_from, "moved_aside.from", 0) \
	X(str, moved_aside_to, "moved_aside.to", 0) \
	X(obj, outputs, "outputs", 0) \
	X(str, outputs_folder, "outputs.folder", 0) \
	X(arr, outputs_expected, "outputs.expected", 0) \
	X(arr, outputs_files, "outputs.files", 0) \
	X(obj, ids, "ids", KD_OBS_OPT) \
	X(bool, ids_declared, "ids.declared", 0) \
	X(str, ids_error, "ids.error", KD_OBS_OPT) \
	X(str, ids_order, "ids.order", KD_OBS_OPT) \
	X(int, ids_output, "ids.output", KD_OBS_OPT) \
	X(int, ids_rows, "ids.rows", KD_OBS_OPT) \
	X(int, ids_input, "ids.input", KD_OBS_OPT) \
	X(int, ids_missing, "ids.missing", KD_OBS_OPT) \
	X(int, ids_extra, "ids.extra", KD_OBS_OPT) \
	X(int, ids_duplicates, "ids.duplicates", KD_OBS_OPT) \
	X(bool, ids_same_order, "ids.same_order", KD_OBS_OPT) \
	X(bool, ids_ok, "ids.ok", KD_OBS_OPT) \
	X(str, ids_first_missing, "ids.first_missing", KD_OBS_OPT) \
	X(str, ids_first_extra, "ids.first_extra", KD_OBS_OPT) \
	X(str, ids_first_duplicate, "ids.first_duplicate", KD_OBS_OPT) \
	X(str, ids_first_misplaced, "ids.first_misplaced", KD_OBS_OPT) \
	X(obj, comparison, "comparison", KD_OBS_OPT) \
	X(str, comparison_error, "comparison.error", KD_OBS_OPT) \
	X(any, comparison_rule_declared, "comparison.rule_declared", KD_OBS_OPT) \
	X(str, comparison_rule, "comparison.rule", KD_OBS_OPT) \
	X(bool, comparison_pass, "comparison.pass", KD_OBS_OPT) \
	X(int, comparison_compared, "comparison.compared", KD_OBS_OPT) \
	X(int, comparison_out_of_tolerance, "comparison.out_of_tolerance", KD_OBS_OPT) \
	X(any, comparison_max_abs_error, "comparison.max_abs_error", KD_OBS_OPT) \
	X(any, comparison_max_rel_error, "comparison.max_rel_error", KD_OBS_OPT) \
	X(any, comparison_metric, "comparison.metric", KD_OBS_OPT) \
	X(str, comparison_worst_row, "comparison.worst_row", KD_OBS_OPT) \
	X(obj, comparison_worst, "comparison.worst", KD_OBS_OPT) \
	X(str, comparison_worst_element, "comparison.worst.element", 0) \
	X(any, comparison_worst_out, "comparison.worst.out", 0) \
	X(any, comparison_worst_ref, "comparison.worst.ref", 0) \
	X(str, comparison_rule_digest, "comparison.rule_digest", KD_OBS_OPT) \
	X(str, comparison_rule_canonical, "comparison.rule_canonical", KD_OBS_OPT) \
	X(obj, resume, "resume", KD_OBS_OPT) \
	X(bool, resume_required_missing, "resume.required_missing", KD_OBS_OPT) \
	X(str, resume_declaration_error, "resume.declaration_error", KD_OBS_OPT) \
	X(str, resume_interpreter_missing, "resume.interpreter_missing", KD_OBS_OPT) \
	X(str, resume_error, "resume.error", KD_OBS_OPT) \
	X(int, resume_steps, "resume.steps", KD_OBS_OPT) \
	X(int, resume_interrupt_at, "resume.interrupt_at", KD_OBS_OPT) \
	X(str, resume_interrupt, "resume.interrupt", KD_OBS_OPT) \
	X(any, resume_rule, "resume.rule", KD_OBS_OPT) \
	X(any, resume_reference_rule, "resume.reference_rule", KD_OBS_OPT) \
	X(obj, resume_runs, "resume.runs", KD_OBS_OPT) \
	X(str, resume_checkpoint, "resume.checkpoint", KD_OBS_OPT) \
	X(bool, resume_checkpoint_missing, "resume.checkpoint_missing", KD_OBS_OPT) \
	X(bool, resume_finished_before_kill, "resume.finished_before_kill", KD_OBS_OPT) \
	X(bool, resume_cancelled, "resume.cancelled", KD_OBS_OPT) \
	X(str, resume_not_run, "resume.not_run", KD_OBS_OPT) \
	X(int, resume_resumed_from, "resume.resumed_from", KD_OBS_OPT) \
	X(bool, resume_step_unknown, "resume.step_unknown", KD_OBS_OPT) \
	X(obj, resume_inventory, "resume.inventory", KD_OBS_OPT) \
	X(str, resume_inventory_checkpoint, "resume.inventory.checkpoint", 0) \
	X(arr, resume_inventory_kinds, "resume.inventory.kinds", 0) \
	X(str, resume_inventory_error, "resume.inventory.error", KD_OBS_OPT) \
	X(any, resume_inventory_refused, "resume.inventory.refused", KD_OBS_OPT) \
	X(str, resume_inventory_loader, "resume.inventory.loader", KD_OBS_OPT) \
	X(str, resume_inventory_log, "resume.inventory.log", KD_OBS_OPT) \
	X(int, resume_inventory_step, "resume.inventory.step", KD_OBS_OPT) \
	X(obj, resume_inventory_uses, "resume.inventory.uses", KD_OBS_OPT) \
	X(str, resume_inventory_script, "resume.inventory.script", KD_OBS_OPT) \
	X(str, resume_inventory_step_key, "resume.inventory.step_key", KD_OBS_OPT) \
	X(obj, resume_metrics, "resume.metrics", KD_OBS_OPT) \
	X(obj, resume_metrics_uninterrupted, "resume.metrics.uninterrupted", 0) \
	X(obj, resume_metrics_resumed, "resume.metrics.resumed", KD_OBS_OPT) \
	X(obj, resume_trajectory, "resume.trajectory", KD_OBS_OPT) \
	X(obj, resume_trajectory_first, "resume.trajectory.first", KD_OBS_OPT) \
	X(int, resume_trajectory_first_step, "resume.trajectory.first.step", 0) \
	X(str, resume_trajectory_first_key, "resume.trajectory.first.key", 0) \
	X(int, resume_trajectory_from, "resume.trajectory.from", 0) \
	X(obj, resume_trajectory_at_first, "resume.trajectory.at_first", KD_OBS_OPT) \
	X(obj, resume_trajectory_missing, "resume.trajectory.missing", KD_OBS_OPT) \
	X(obj, resume_plot, "resume.plot", KD_OBS_OPT) \
	X(str, resume_plot_key, "resume.plot.key", 0) \
	X(arr, resume_plot_uninterrupted, "resume.plot.uninterrupted", 0) \
	X(arr, resume_plot_resumed, "resume.plot.resumed", 0) \
	X(obj, resume_final, "resume.final", KD_OBS_OPT) \
	X(str, resume_final_absent, "resume.final.absent", KD_OBS_OPT) \
	X(str, resume_final_uninterrupted, "resume.final.uninterrupted", 0) \
	X(str, resume_final_resumed, "resume.final.resumed", 0) \
	X(str, resume_final_error, "resume.final.error", KD_OBS_OPT) \
	X(str, resume_final_log, "resume.final.log", KD_OBS_OPT) \
	X(int, resume_final_compared, "resume.final.compared", KD_OBS_OPT) \
	X(int, resume_final_differ, "resume.final.differ", KD_OBS_OPT) \
	X(any, resume_final_worst_max_abs, "resume.final.worst.max_abs", KD_OBS_OPT) \
	X(str, resume_final_worst_tensor, "resume.final.worst.tensor", KD_OBS_OPT) \
	X(arr, resume_final_differing, "resume.final.differing", KD_OBS_OPT) \
	X(obj, resume_final_classes, "resume.final.classes", KD_OBS_OPT) \
	X(obj, resume_reference, "resume.reference", KD_OBS_OPT) \
	/* end */

/* One element of outputs.files: obs_sample_file_NAME(f); the others are
 * the format reader's (output.c). */
#define KD_OBS_SAMPLE_FILE(X) \
	X(str, file, "file", 0) \
	X(bool, missing, "missing", KD_OBS_OPT) \
	X(arr, folder_holds, "folder_holds", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	X(str, format, "format", KD_OBS_OPT) \
	X(str, dtype, "dtype", KD_OBS_OPT) \
	X(arr, shape, "shape", KD_OBS_OPT) \
	X(int, count, "count", KD_OBS_OPT) \
	X(int, nan, "nan", KD_OBS_OPT) \
	X(int, posinf, "posinf", KD_OBS_OPT) \
	X(int, neginf, "neginf", KD_OBS_OPT) \
	X(any, min, "min", KD_OBS_OPT) \
	X(any, max, "max", KD_OBS_OPT) \
	/* end */

/* A failure (failure, and resume.runs.NAME.failure): obs_sample_failure_NAME(f). */
#define KD_OBS_SAMPLE_FAILURE(X) \
	X(str, step, "step", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	X(str, frame, "frame", KD_OBS_OPT) \
	X(str, code, "code", KD_OBS_OPT) \
	/* end */

/* One run of the resume check (resume.runs.NAME): obs_sample_resume_run_NAME(run). */
#define KD_OBS_SAMPLE_RUN(X) \
	X(bool, started, "started", 0) \
	X(str, error, "error", KD_OBS_OPT) \
	X(str, log, "log", KD_OBS_OPT) \
	X(str, ended, "ended", KD_OBS_OPT) \
	X(num, seconds, "seconds", KD_OBS_OPT) \
	X(bool, timed_out, "timed_out", KD_OBS_OPT) \
	X(bool, cancelled, "cancelled", KD_OBS_OPT) \
	X(bool, ok, "ok", KD_OBS_OPT) \
	X(int, checkpoint_step, "checkpoint_step", KD_OBS_OPT) \
	X(bool, memory_limit_hit, "memory_limit_hit", KD_OBS_OPT) \
	X(obj, failure, "failure", KD_OBS_OPT) \
	/* end */

/* One kind of state in resume.inventory.kinds: obs_sample_kind_NAME(k). */
#define KD_OBS_SAMPLE_KIND(X) \
	X(str, kind, "kind", 0) \
	X(bool, present, "present", 0) \
	X(arr, where, "where", 0) \
	X(any, buffers, "buffers", KD_OBS_OPT) \
	X(int, tensors, "tensors", KD_OBS_OPT) \
	X(int, parameters, "parameters", KD_OBS_OPT) \
	X(int, devices, "devices", KD_OBS_OPT) \
	/* end */

/* A metrics file reread (resume.metrics.NAME): obs_sample_metrics_NAME(m). */
#define KD_OBS_SAMPLE_METRICS(X) \
	X(str, error, "error", KD_OBS_OPT) \
	X(int, first_step, "first_step", KD_OBS_OPT) \
	X(int, last_step, "last_step", KD_OBS_OPT) \
	X(bool, restarted, "restarted", KD_OBS_OPT) \
	X(bool, truncated_last, "truncated_last", KD_OBS_OPT) \
	/* end */

/* A trajectory comparison (resume.trajectory, resume.reference):
 * obs_sample_traj_NAME(t); first.NAME and worst.NAME hold the two runs'
 * values under their names. */
#define KD_OBS_SAMPLE_TRAJ(X) \
	X(str, error, "error", KD_OBS_OPT) \
	X(int, from, "from", KD_OBS_OPT) \
	X(int, to, "to", KD_OBS_OPT) \
	X(int, compared, "compared", KD_OBS_OPT) \
	X(int, diverging, "diverging", KD_OBS_OPT) \
	X(bool, pass, "pass", KD_OBS_OPT) \
	X(any, worst_diff, "worst.diff", KD_OBS_OPT) \
	X(int, worst_step, "worst.step", KD_OBS_OPT) \
	X(str, worst_key, "worst.key", KD_OBS_OPT) \
	X(obj, first, "first", KD_OBS_OPT) \
	X(int, first_step, "first.step", KD_OBS_OPT) \
	X(str, first_key, "first.key", KD_OBS_OPT) \
	X(obj, missing, "missing", KD_OBS_OPT) \
	X(int, missing_step, "missing.step", KD_OBS_OPT) \
	X(str, missing_in, "missing.in", KD_OBS_OPT) \
	/* end */

/* One element of resume.final.differing (share/ckpt-inventory.py's
 * comparison): obs_sample_tensor_NAME(d). */
#define KD_OBS_SAMPLE_TENSOR(X) \
	X(str, tensor, "tensor", 0) \
	X(str, only_in, "only_in", KD_OBS_OPT) \
	X(int, differ, "differ", KD_OBS_OPT) \
	X(int, elements, "elements", KD_OBS_OPT) \
	X(obj, first, "first", KD_OBS_OPT) \
	X(int, first_index, "first.index", KD_OBS_OPT) \
	X(any, first_a, "first.a", KD_OBS_OPT) \
	X(any, first_b, "first.b", KD_OBS_OPT) \
	X(str, error, "error", KD_OBS_OPT) \
	X(str, class, "class", KD_OBS_OPT) \
	X(bool, same, "same", KD_OBS_OPT) \
	/* end */

#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample, type, name, path, flags)
KD_OBS_SAMPLE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_file, type, name, path, flags)
KD_OBS_SAMPLE_FILE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_failure, type, name, path, flags)
KD_OBS_SAMPLE_FAILURE(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_resume_run, type, name, path, flags)
KD_OBS_SAMPLE_RUN(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_kind, type, name, path, flags)
KD_OBS_SAMPLE_KIND(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_metrics, type, name, path, flags)
KD_OBS_SAMPLE_METRICS(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_traj, type, name, path, flags)
KD_OBS_SAMPLE_TRAJ(KD_OBS_G)
#undef KD_OBS_G
#define KD_OBS_G(type, name, path, flags) KD_OBS_GETTER(sample_tensor, type, name, path, flags)
KD_OBS_SAMPLE_TENSOR(KD_OBS_G)
#undef KD_OBS_G

#endif
