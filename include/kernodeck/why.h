/*
 * why.h - what `kernodeck diff` adds when two results differ: the
 * trajectories and tensors two dossiers hold compared as such, and the
 * other layers' differences ranked by how likely they are to change
 * numbers.
 *
 *   why_trajectory  two metrics files (JSON Lines, one {"step": N, ...}
 *                   per step): the first step and key where they part,
 *                   the largest difference and where, bit for bit
 *   why_tensor      two .npy files: how many elements differ bit for bit,
 *                   the largest difference and at which element
 *   why_rank        the differences of the other layers, each with a rank
 *                   (1 most likely) and why it can change numbers
 */
#ifndef KD_WHY_H
#define KD_WHY_H

#include <jansson.h>

#include "kernodeck/err.h"

/* NULL when the two trajectories are the same (or either cannot be read:
 * err says why), else {key: label, change: "trajectory", steps_a, steps_b,
 * first_step, first_key, a, b (the values there), largest, largest_step,
 * largest_key}.  A step only one side has parts them there. */
json_t *why_trajectory(const char *label, const char *path_a, const char *path_b,
		       struct kd_err *err);
/* NULL when the two tensors are the same bit for bit (or cannot be read),
 * else {key: label, change: "tensor", elements, differing, largest,
 * largest_at (flat index)} or {key, change: "tensor", shape_a, shape_b}.
 * With rule (a reference's result.rule, or NULL), the two are also
 * compared under it, a the reference side: rule: {pass, mismatched,
 * max_abs} (or {error} for a rule that does not parse). */
json_t *why_tensor(const char *label, const char *path_a, const char *path_b,
		   const json_t *rule, struct kd_err *err);
/* The differences of the layers other than "result" ({layer: [{key, a, b,
 * ...}]}) ranked: [{rank, layer, key, a, b, why}], most likely first. */
json_t *why_rank(const json_t *layers);

#endif
