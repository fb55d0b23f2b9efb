/*
 * dossier-resume.h - the resume check of stage 6 in the dossier: a README
 * section with the check's rows, the two trajectories and the checkpoint
 * inventory as tables, and a step of procedure.sh that reruns the three
 * runs by hand (the project interpreter, argument vectors, no activation)
 * and compares the trajectories under resume.rule.
 */
#ifndef KD_DOSSIER_RESUME_H
#define KD_DOSSIER_RESUME_H

struct kd_ctx;

/* The README's "## The resume check" section (malloc'd), or NULL when
 * stage 6 has no resume observations. */
char *dossier_resume_readme(const struct kd_ctx *ctx);
/* procedure.sh's step 7 (malloc'd), or NULL when resume: is not declared
 * (or malformed). */
char *dossier_resume_procedure(const struct kd_ctx *ctx);
/* procedure.sh's check, right after the clone, that no link is on the way
 * to what step 7 writes (kernodeck-resume) or reads (reference_metrics);
 * it defines kd_no_link, which step 7 uses again.  NULL as above. */
char *dossier_resume_links(const struct kd_ctx *ctx);

#endif
