/*
 * cmd.h - the commands of `kernodeck`, one function each (src/cmd-*.c,
 * screens/ for the walkthrough).  Each returns the exit status (0..3, see
 * DESIGN.md section 2) and is given argv starting at the command name.
 */
#ifndef KD_CMD_H
#define KD_CMD_H

int cmd_walkthrough(int argc, char **argv);  /* screens/frame.c */
int cmd_check(int argc, char **argv);        /* src/cmd-check.c */
int cmd_deviate(int argc, char **argv);      /* src/cmd-deviate.c */
int cmd_act(int argc, char **argv);          /* src/cmd-act.c */
int cmd_capture(int argc, char **argv);      /* src/cmd-capture.c */
/* `kernodeck hash`: "SHA256  PATH" per file (sha256sum's format; a
 * folder's line has its manifest digest); 1 cancelled, 2 an input could
 * not be hashed. */
int cmd_hash(int argc, char **argv);         /* src/cmd-hash.c */
int cmd_inspect(int argc, char **argv);      /* src/cmd-inspect.c */
int cmd_replay(int argc, char **argv);       /* src/cmd-replay.c */
int cmd_diff(int argc, char **argv);         /* src/cmd-diff.c */
int cmd_fleet(int argc, char **argv);        /* src/cmd-fleet.c */
/* src/cmd-demo.c: creates the demo; *walk_dir (malloc'd, or NULL with
 * --create-only, --help or an error) is the project the caller opens the
 * walkthrough on. */
int cmd_demo(int argc, char **argv, char **walk_dir);
int cmd_dossier(int argc, char **argv);      /* src/cmd-dossier.c */

#endif
