/*
 * frame.h - the walkthrough's entry point (screens/frame.c), for main.c.
 * No curses type here: the core never includes it (tests/check-source.sh),
 * only the program's main and screens/ do.
 */
#ifndef KD_FRAME_H
#define KD_FRAME_H

/* `kernodeck [DIR] [--state-dir DIR] [--python PATH]` (kd_cmd_walkthrough). */
int cmd_walkthrough(int argc, char **argv);
/* Open the walkthrough on a project folder; the exit status (cmd.h). */
int tui_main(const char *project_dir, const char *state_dir, const char *python);

#endif
