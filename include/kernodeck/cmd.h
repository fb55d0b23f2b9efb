/*
 * cmd.h - the commands of `kernodeck`, one function each (src/cmd-*.c,
 * screens/ for the walkthrough).  Each returns the exit status (0..3, see
 * DESIGN.md section 2) and is given argv starting at the command name.
 */
#ifndef KD_CMD_H
#define KD_CMD_H

int cmd_walkthrough(int argc, char **argv);  /* screens/frame.c */
int cmd_check(int argc, char **argv);        /* src/cmd-check.c */
int cmd_deviate(int argc, char **argv);      /* src/cmd-check.c */
int cmd_act(int argc, char **argv);          /* src/cmd-act.c */
int cmd_capture(int argc, char **argv);      /* src/cmd-capture.c */
int cmd_inspect(int argc, char **argv);      /* src/cmd-inspect.c */
int cmd_replay(int argc, char **argv);       /* src/cmd-replay.c */
int cmd_diff(int argc, char **argv);         /* src/cmd-diff.c */
int cmd_fleet(int argc, char **argv);        /* src/cmd-fleet.c */
int cmd_demo(int argc, char **argv);         /* src/cmd-demo.c */
int cmd_dossier(int argc, char **argv);      /* src/cmd-dossier.c */

/* Open the walkthrough on a project folder (screens/frame.c). */
int tui_main(const char *project_dir, const char *state_dir, const char *python);

#endif
