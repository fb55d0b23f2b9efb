/*
 * caps.h - every buffer has a named limit.
 *
 * A refusal names the file and the cap it exceeded.
 */
#ifndef KD_CAPS_H
#define KD_CAPS_H

#define KD_CAP_YAML_FILE      (16u * 1024 * 1024)  /* state.yaml, reference.yaml, dossier.yaml */
#define KD_CAP_YAML_DEPTH     64                   /* nesting of mappings and sequences */
#define KD_CAP_TEXT_FILE      (64u * 1024 * 1024)  /* pip outputs, requirements, collect_env */
#define KD_CAP_INPUT_LINES    50000u               /* lines of one pip output or requirements file */
#define KD_CAP_LINE           (64u * 1024)         /* one line of a text input */
#define KD_CAP_STAGE_IDS      256                  /* the stage ids joined (stage_id_list) */
#define KD_CAP_CMD_OPTS       24                   /* options of one command (cmd.h) */
#define KD_CAP_CMD_ELEMENT    96                   /* one element of a synopsis */
#define KD_CAP_CMD_SYNOPSIS   1024                 /* one command's synopsis */
#define KD_CAP_PIP_OUTPUT     (64u * 1024 * 1024)
#define KD_CAP_RUN_TAIL       (256u * 1024)        /* output of a child kept in memory */
#define KD_CAP_LOG            (16u * 1024 * 1024)  /* one run's output in its log: head and tail */
#define KD_CAP_JSON_LINE      (1024u * 1024)       /* one line of the probe's output */
#define KD_CAP_NPY_HEADER     (1024u * 1024)
#define KD_CAP_SAFETENSORS_HEADER (100u * 1024 * 1024)
#define KD_CAP_METRICS_FILE   (64u * 1024 * 1024)  /* a training run's metrics.jsonl */
#define KD_CAP_METRICS_LINE   (64u * 1024)         /* one step's metrics object */

#endif
