/*
 * cmd.h - the commands of `kernodeck`: one declaration each of its name,
 * operands, options and help (struct kd_cmd_entry, after tmux's
 * cmd_entry), from which come `--help`, the usage of a usage error, the
 * synopses of `kernodeck --help` and the man page's SYNOPSIS
 * (tools/mankeys), and the option parser (cmd_getopt).
 *
 * Adding a command: write src/cmd/cmd-NAME.c ending with its entry
 *
 *   const struct kd_cmd_entry kd_cmd_NAME = { .name = "NAME", .opts = ...,
 *           .exec = cmd_NAME };
 *
 * and add X(NAME) to KD_CMD_LIST below, in the order `kernodeck --help`
 * lists it.  A command that works on a project says so in its entry
 * (.project = KD_PROJECT_LOCKED or KD_PROJECT_READ) and opens it with
 * cmd_open_project once its options are read.  Adding an option: one line
 * in its entry's options, one case in its cmd_getopt loop.
 *
 * Each exec is given argv starting at the command name and returns an
 * exit status (enum kd_exit, below; the EXIT STATUS section of the man
 * page).
 */
#ifndef KD_CMD_H
#define KD_CMD_H

#include <stdio.h>

/* The exit statuses of every command (the same numbers as err.h's codes). */
enum kd_exit {
	KD_EXIT_OK = 0,       /* passed, or every difference is a recorded deviation */
	KD_EXIT_FAILED = 1,   /* a check failed, a stage is pending or stale, declined */
	KD_EXIT_USAGE = 2,    /* bad usage, or a malformed input file */
	KD_EXIT_ENV = 3,      /* the environment failed */
};

/* Flags of an option. */
#define KD_OPT_SHORT  0x1u   /* also -C, C being its val */
#define KD_OPT_NEEDED 0x2u   /* must be given: shown without brackets */
#define KD_OPT_MANY   0x4u   /* may be given again: shown with "..." */
#define KD_OPT_HIDDEN 0x8u   /* internal (fleet's node task): not shown */

struct kd_opt {
	const char *name;    /* "stage" for --stage; NULL ends the list */
	int val;             /* what cmd_getopt returns for it (a character) */
	const char *arg;     /* its argument as shown ("ID", "text|yaml|json"); NULL: a flag */
	unsigned flags;
};

/* What a command needs of the project before it does anything (as git's
 * RUN_SETUP): cmd_open_project opens it so, with one message and one
 * mapping of its errors to exit statuses. */
enum kd_cmd_project {
	KD_PROJECT_NONE = 0,   /* no project: inspect, hash, diff, replay, fleet, demo */
	KD_PROJECT_READ,       /* read, without the lock: what it does changes nothing */
	KD_PROJECT_LOCKED,     /* under the lock; another kernodeck holding it is exit 3 */
};

struct kd_cmd_entry {
	const char *name;          /* "check"; NULL for the walkthrough (`kernodeck [DIR]`) */
	const char *args;          /* operands shown before the options ("[DIR]"), or NULL */
	const char *args_after;    /* operands shown after them ("PATH..."), or NULL */
	const struct kd_opt *opts; /* the options, --help apart */
	const char *help;          /* what --help prints after a blank line, or NULL */
	void (*usage_tail)(FILE *fp); /* printed after every usage (inspect's kinds), or NULL */
	int stop_at_operand;       /* 1: options end at the first operand (hash) */
	enum kd_cmd_project project;  /* how cmd_open_project opens the project */
	int (*exec)(int argc, char **argv);  /* NULL for the walkthrough (screens/) */
};

/* The commands, in the order `kernodeck --help` lists them. */
#define KD_CMD_LIST(X) \
	X(init) X(check) X(deviate) X(act) X(capture) X(inspect) X(hash) X(dossier) \
	X(replay) X(diff) X(bisect) X(fleet) X(health) X(demo)

#define KD_CMD_DECL(n) extern const struct kd_cmd_entry kd_cmd_##n;
KD_CMD_LIST(KD_CMD_DECL)
#undef KD_CMD_DECL
/* `kernodeck [DIR] [--state-dir DIR] [--python PATH]` (run by screens/). */
extern const struct kd_cmd_entry kd_cmd_walkthrough;
/* KD_CMD_LIST as a NULL-terminated table (src/cmd/cmd.c). */
extern const struct kd_cmd_entry *const kd_cmd_table[];
/* The entry named name, or NULL. */
const struct kd_cmd_entry *cmd_find(const char *name);

/* getopt_long over the entry's options, --help and -h.  Returns an
 * option's val (optarg set for one with an argument), KD_CMD_HELP, -1 at
 * the first operand left (optind) or the end, or KD_CMD_BAD after saying
 * what is wrong on stderr (an unknown option, a missing argument).  Start
 * with optind = 0 (cmd_getopt_reset). */
#define KD_CMD_HELP 0x100
#define KD_CMD_BAD  0x101
void cmd_getopt_reset(void);
int cmd_getopt(const struct kd_cmd_entry *e, int argc, char **argv);

/* The usage lines: "usage: kernodeck NAME OPERANDS [OPTIONS]...", wrapped
 * under 80 columns, then the entry's usage_tail. */
void cmd_usage(const struct kd_cmd_entry *e, FILE *fp);
/* --help: the usage and the help on stdout.  Returns KD_EXIT_OK. */
int cmd_help(const struct kd_cmd_entry *e);
/* A usage error: "kernodeck NAME: WHY" (when fmt is not NULL), then the
 * usage, on stderr.  Returns KD_EXIT_USAGE. */
int cmd_usage_error(const struct kd_cmd_entry *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The one-line synopsis "NAME OPERANDS [--opt ARG]..." (without
 * "kernodeck "; the walkthrough's has no name) into buf; returns buf. */
const char *cmd_synopsis(const struct kd_cmd_entry *e, char *buf, size_t len);
/* Write text wrapped at its spaces (never inside brackets) under width
 * columns, continuation lines indented by indent spaces. */
void cmd_put_wrapped(FILE *fp, const char *text, size_t first_col, size_t indent,
		     size_t width);
/* The man page's synopsis of an entry, in roff (one .B line for the
 * command, then the operands and options, then .br). */
void cmd_synopsis_roff(const struct kd_cmd_entry *e, FILE *fp);

struct kd_ctx;
/* The exit status of a command whose own work failed with err.h's code
 * rc (opening the project, or what it does once open): KD_EXIT_USAGE for
 * an input missing, unreadable or malformed (KD_EINPUT), KD_EXIT_ENV for
 * anything else (a program or a write failed, the lock is held).
 * KD_EFAIL is among the latter: exit 1 says a check failed, which a
 * command's own work is not (act's actions, which re-run checks, keep it). */
int cmd_exit_of(int rc);
/* Open the project in dir (its state in state_dir, or NULL: DIR/kernodeck)
 * as e->project says, or without the lock when how is KD_PROJECT_READ (a
 * locked command's part that changes nothing; else pass e->project).  0,
 * or, after "kernodeck NAME: WHY" on stderr and ctx closed, the exit
 * status (cmd_exit_of). */
int cmd_open_project(const struct kd_cmd_entry *e, enum kd_cmd_project how,
		     struct kd_ctx *ctx, const char *dir, const char *state_dir);

/* Set by the program's main (src/main.c) to open the walkthrough on a
 * project; NULL in programs without screens/ (then `kernodeck demo` says
 * what to run next instead). */
extern int (*cmd_open_walkthrough)(const char *project_dir);

#endif
