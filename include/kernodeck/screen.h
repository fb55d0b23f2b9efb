/*
 * screen.h - the walkthrough's views (screens/); the only header that
 * names curses types.
 *
 * The frame (screens/frame.c) owns the terminal: it lays out the stage
 * column, the title bar, the stage area (fields, checks table, log pane),
 * the message line and the key bar, handles resizing in one place
 * (kd_frame_layout) and redraws everything from the model after every key.
 * Each stage has a thin screen (screens/reference.c ... dossier.c) ending in
 * a const struct kd_screen_ops; its key() handler returns KD_* flags and the
 * frame acts on them (save, run, advance, redraw): only the frame saves.
 *
 * Drawing never writes outside the terminal: every helper takes a width and
 * clips to it, and below KD_MIN_COLS x KD_MIN_ROWS the frame shows a notice
 * instead of the layout (down to 1x1).
 */
#ifndef KD_SCREEN_H
#define KD_SCREEN_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>
#include <stddef.h>
#include <jansson.h>

#include "kernodeck/ctx.h"
#include "kernodeck/keys.h"
#include "kernodeck/stage.h"

_Static_assert((KD_K_UP & ~KD_KFUNC) == KEY_UP, "keys.h KD_K_UP");
_Static_assert((KD_K_DOWN & ~KD_KFUNC) == KEY_DOWN, "keys.h KD_K_DOWN");
_Static_assert((KD_K_LEFT & ~KD_KFUNC) == KEY_LEFT, "keys.h KD_K_LEFT");
_Static_assert((KD_K_RIGHT & ~KD_KFUNC) == KEY_RIGHT, "keys.h KD_K_RIGHT");
_Static_assert((KD_K_HOME & ~KD_KFUNC) == KEY_HOME, "keys.h KD_K_HOME");
_Static_assert((KD_K_END & ~KD_KFUNC) == KEY_END, "keys.h KD_K_END");
_Static_assert((KD_K_BACKSPACE & ~KD_KFUNC) == KEY_BACKSPACE, "keys.h KD_K_BACKSPACE");
_Static_assert((KD_K_F(1) & ~KD_KFUNC) == KEY_F(1), "keys.h KD_K_F");
_Static_assert((KD_K_DC & ~KD_KFUNC) == KEY_DC, "keys.h KD_K_DC");
_Static_assert((KD_K_IC & ~KD_KFUNC) == KEY_IC, "keys.h KD_K_IC");
_Static_assert((KD_K_NPAGE & ~KD_KFUNC) == KEY_NPAGE, "keys.h KD_K_NPAGE");
_Static_assert((KD_K_PPAGE & ~KD_KFUNC) == KEY_PPAGE, "keys.h KD_K_PPAGE");
_Static_assert((KD_K_ENTER & ~KD_KFUNC) == KEY_ENTER, "keys.h KD_K_ENTER");
_Static_assert((KD_K_BTAB & ~KD_KFUNC) == KEY_BTAB, "keys.h KD_K_BTAB");
_Static_assert((KD_K_RESIZE & ~KD_KFUNC) == KEY_RESIZE, "keys.h KD_K_RESIZE");

#define KD_MIN_COLS 80
#define KD_MIN_ROWS 24
#define KD_LOG_LINES 1000        /* lines the log pane keeps */
#define KD_LOG_LINE_MAX 1024     /* bytes of one log line kept */

/* X(enum, foreground, background, monochrome attribute, colour attribute) */
#define KD_COLOR_INFO(X) \
	X(KD_C_NORMAL,    -1,            -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_TITLE,     COLOR_BLACK,   COLOR_CYAN,  A_REVERSE,  A_NORMAL) \
	X(KD_C_HEADER,    COLOR_CYAN,    -1,          A_BOLD,     A_BOLD) \
	X(KD_C_BORDER,    COLOR_BLUE,    -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_SELECTED,  COLOR_BLACK,   COLOR_CYAN,  A_REVERSE,  A_NORMAL) \
	X(KD_C_CURRENT,   COLOR_WHITE,   COLOR_BLUE,  A_REVERSE,  A_BOLD) \
	X(KD_C_PASSED,    COLOR_GREEN,   -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_FAILED,    COLOR_RED,     -1,          A_BOLD,     A_BOLD) \
	X(KD_C_DEVIATION, COLOR_YELLOW,  -1,          A_UNDERLINE, A_NORMAL) \
	X(KD_C_STALE,     COLOR_MAGENTA, -1,          A_DIM,      A_NORMAL) \
	X(KD_C_PENDING,   -1,            -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_WARN,      COLOR_YELLOW,  -1,          A_BOLD,     A_BOLD) \
	X(KD_C_INFO,      COLOR_CYAN,    -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_DIM,       -1,            -1,          A_DIM,      A_DIM) \
	X(KD_C_KEY,       COLOR_BLACK,   COLOR_CYAN,  A_REVERSE,  A_NORMAL) \
	X(KD_C_ERROR,     COLOR_WHITE,   COLOR_RED,   A_BOLD | A_REVERSE, A_BOLD) \
	X(KD_C_OK,        COLOR_GREEN,   -1,          A_BOLD,     A_BOLD) \
	X(KD_C_DIALOG,    -1,            -1,          A_NORMAL,   A_NORMAL) \
	X(KD_C_INPUT,     COLOR_BLACK,   COLOR_WHITE, A_UNDERLINE, A_NORMAL) \
	X(KD_C_MATCH,     COLOR_BLACK,   COLOR_YELLOW, A_REVERSE, A_NORMAL)

#define KD_C_ENUM(e, fg, bg, mono, attr) e,
enum kd_color { KD_COLOR_INFO(KD_C_ENUM) KD_C__COUNT };
#undef KD_C_ENUM

/* Flags returned by key handlers; the frame acts on them. */
enum {
	KD_HANDLED = 1 << 0,  /* the key was used */
	KD_REDRAW  = 1 << 1,
	KD_RUN     = 1 << 2,  /* run the stage's checks */
	KD_NEXT    = 1 << 3,
	KD_PREV    = 1 << 4,
	KD_SAVE    = 1 << 5,  /* the state changed: save it */
	KD_QUIT    = 1 << 6,
	KD_DESCRIBE = 1 << 7, /* observations changed: describe again */
};

enum kd_focus { KD_FOCUS_FIELDS, KD_FOCUS_CHECKS, KD_FOCUS_LOG, KD_FOCUS__COUNT };

/* Geometry, recomputed in one place (kd_frame_layout). */
struct kd_geom {
	int rows, cols;
	int full;              /* 1 when the full layout fits */
	int left_w;            /* stage column */
	int rx, rw;            /* right side */
	int body_y, body_h;    /* between title bar and message line */
	int fields_y, fields_h;/* rows of fields, header excluded */
	int checks_y, checks_h;/* rows of the table, headers excluded */
	int log_y, log_h;      /* lines of log, header excluded */
	int msg_y, bar_y;
};

/* The live log pane: a ring of the last lines, the step and progress. */
struct kd_logpane {
	char *lines[KD_LOG_LINES];
	size_t first, n;       /* ring: oldest at first */
	char step[128];
	double fraction;       /* < 0: unknown */
	double t_start, t_end; /* monotonic seconds; t_end 0 while running */
	int running;
	int scroll;            /* lines up from the bottom */
	char title[64];        /* "stage", or an action's label */
};

struct kd_screen_ops;

struct kd_screen {
	struct kd_ctx *ctx;
	const struct kd_screen_ops *ops;
	const struct kd_stage_ops *stage;
	int idx;                     /* stage index */
	enum kd_focus focus;
	int sel_field, top_field;
	int sel_check, top_check;
	struct kd_rows info;         /* describe rows of the last observations */
	struct kd_logpane log;
	char msg[1024];
	enum kd_color msg_color;
	struct kd_geom g;
	int ref_broken;              /* reference.yaml on disk does not load */
	char ref_error[1400];
	char lock_note[512];         /* who holds the lock (read-only) */
	int quit;
	int cancel;                  /* Esc pressed while a stage runs */
	void *user;                  /* a screen's own state */
};

struct kd_screen_ops {
	const struct kd_stage_ops *stage;  /* the data side; a screen adds no checks */
	const char *empty_hint;            /* shown in the checks area before a run */
	int bar_editref;                   /* 1: the key bar names E (the whole
					    * reference.yaml) beside e (a field) */
	void (*enter)(struct kd_screen *);
	void (*draw)(struct kd_screen *);  /* NULL: kd_screen_draw_default */
	unsigned (*key)(struct kd_screen *, int key, int action);
	void (*leave)(struct kd_screen *);
};

/* Each stage's screen (screens/ID.c), and the table of them in the
 * stages' order (screens/frame.c), both from the list of stages.h. */
#define KD_SCREEN_EXTERN_(id, file, keys) extern const struct kd_screen_ops kd_screen_##id;
KD_STAGE_LIST(KD_SCREEN_EXTERN_)
#undef KD_SCREEN_EXTERN_
extern const struct kd_screen_ops *const kd_screens[KD_NSTAGES];

/* --- tui.c: terminal, colours, keys, clipped drawing --- */
int kd_tui_init(struct kd_err *err);
void kd_tui_end(void);
/* 1 once SIGINT, SIGTERM or SIGHUP arrived: the frame quits cleanly. */
int kd_tui_signalled(void);
/* Restore the terminal, print the message and exit 3. */
void kd_tui_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* strdup, or the fatal path when memory is exhausted. */
char *kd_xstrdup(const char *s);
attr_t kd_attr(enum kd_color c);
/* A key: a code point, a KD_K_* function key, or -1 when none came within
 * timeout_ms (< 0: wait). */
int kd_tui_getkey(int timeout_ms);
/* Give a key back: the next kd_tui_getkey returns it first. */
void kd_tui_unget(int key);
/* Refresh, then wait for a key: a resize lays the frame out again and
 * comes back as KD_K_RESIZE; -1 when a signal asks to quit; 0 when tick is
 * set and a second passed without a key (to draw again). */
int kd_tui_key(struct kd_screen *scr, int tick);
/* The action bound to key in context (falling back to KD_KC_ANY except in
 * the line editor), or KD_A_NONE. */
int kd_key_action(int context, int key);
/* Names of the keys of an action ("r, F5"), for messages. */
const char *kd_key_names(int action);
/* Print s at (y, x) clipped to w display columns; pad with spaces to w
 * when pad.  Returns the columns used. */
int kd_put(int y, int x, int w, const char *s, attr_t attr, int pad);
/* Fill w columns at (y, x) with ch. */
void kd_fill(int y, int x, int w, attr_t attr);
void kd_hline(int y, int x, int w, attr_t attr);
void kd_vline(int y, int x, int h, attr_t attr);
/* A box with a title; inside is (y+1, x+1, h-2, w-2). */
void kd_box(int y, int x, int h, int w, const char *title, attr_t attr);
/* A centred, clipped box for a dialog of inner size h x w: sets *y, *x. */
void kd_dialog_place(int h, int w, int *y, int *x, int *hh, int *ww);
/* Wrap text into at most maxlines lines of w columns (display width);
 * lines[] get malloc'd strings.  Returns the count. */
int kd_wrap(const char *text, int w, char **lines, int maxlines);
void kd_wrap_free(char **lines, int n);
/* Monotonic seconds. */
double kd_now(void);

/* --- draw.c --- */
/* Draw everything from the model (the notice when too small). */
void kd_frame_draw(struct kd_screen *scr);
/* The default stage area: fields, checks, log. */
void kd_screen_draw_default(struct kd_screen *scr);
/* The colour of a stage status. */
enum kd_color kd_status_color(enum kd_status s);

/* --- frame.c --- */
void kd_frame_layout(struct kd_screen *scr);
void kd_frame_message(struct kd_screen *scr, enum kd_color c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Save the state; on failure say so in the message line. */
int kd_frame_save(struct kd_screen *scr);
/* Show an error (kd_err) in a message box. */
void kd_frame_error_box(struct kd_screen *scr, const char *title, const struct kd_err *err);
/* Leave curses for an interactive program (the editor, the pager) run
 * from an argv; returns its exit status (or -1 with err). */
int kd_frame_spawn(struct kd_screen *scr, char *const argv[], struct kd_err *err);
/* Checks table rows: the check rows then the describe rows. */
size_t kd_screen_nrows(const struct kd_screen *scr);
const struct kd_row *kd_screen_row(const struct kd_screen *scr, size_t i, int *is_check);

/* --- table.c: one generic drawer for rows --- */
struct kd_col {
	const char *title;
	int min, max;      /* display columns */
	int grow;          /* weight in sharing the width (0 counts as 1) */
	int optional;      /* 1: left out when the minimums do not fit */
};
struct kd_table {
	const struct kd_col *cols;
	int ncols;
	int nrows;
	/* cell text (may be NULL) and colour of a cell */
	const char *(*cell)(void *u, int row, int col);
	enum kd_color (*color)(void *u, int row, int col);
	void *u;
	int sel;           /* selected row, or -1 */
	int *top;          /* first row shown (kept so that sel is visible) */
	int focused;
};
/* Header at y, rows from y+1 up to h rows. */
void kd_table_draw(const struct kd_table *t, int y, int x, int h, int w);
void kd_checks_draw(struct kd_screen *scr, int y, int x, int h, int w);

/* --- logpane.c --- */
void kd_log_clear(struct kd_logpane *l);
void kd_log_add(struct kd_logpane *l, const char *line, size_t len);
void kd_log_free(struct kd_logpane *l);
void kd_log_draw(struct kd_screen *scr, int y, int x, int h, int w);
/* The sink backed by the pane: polls the keyboard so that Esc cancels. */
void kd_log_sink(struct kd_screen *scr, struct kd_sink *sink);

/* --- form.c: fields and their editing --- */
/* The value of a field as text (for the form), into buf. */
const char *kd_form_value(const struct kd_screen *scr, const struct kd_field *f,
			  const json_t *root, const char *path, char *buf, size_t len, int *dim);
void kd_form_draw(struct kd_screen *scr, int y, int x, int h, int w);
/* The tree a stage field lives in (reference or settings) and its path. */
json_t *kd_form_root(struct kd_screen *scr, const struct kd_field *f, const char **path);
/* Draw fields over root_item (NULL: each field's own root). */
void kd_form_draw_fields(struct kd_screen *scr, const struct kd_field *fields, size_t n,
			 json_t *root_item, int sel, int *top, int focused,
			 int y, int x, int h, int w);
/* Edit the value of f at path in root; 1 when it changed. */
int kd_form_edit_value(struct kd_screen *scr, const struct kd_field *f, json_t *root,
		       const char *path);
/* Save after stage field f changed: KD_* flags. */
unsigned kd_form_commit(struct kd_screen *scr, const struct kd_field *f);
/* Edit stage field i (Enter / e); returns KD_* flags. */
unsigned kd_form_edit(struct kd_screen *scr, int i);
/* Toggle "not applicable" on stage field i. */
unsigned kd_form_toggle_na(struct kd_screen *scr, int i);

/* --- lineedit.c: a one-line editor inside a dialog --- */
struct kd_lineedit {
	const char *title;      /* dialog title */
	const char *label;      /* above the input */
	const char *help;       /* under it, dimmed */
	char *text;             /* in: initial (may be NULL); out: malloc'd */
	char error[512];        /* shown in the dialog (validation) */
	/* Validate the text: 0 accepts; otherwise fill error and return 1. */
	int (*validate)(void *u, const char *text, char *error, size_t len);
	void *u;
};
/* 1 accepted (le->text set), 0 cancelled. */
int kd_lineedit_run(struct kd_screen *scr, struct kd_lineedit *le);

/* --- dialog.c --- */
/* A message box; any key closes it. */
void kd_dialog_message(struct kd_screen *scr, const char *title, const char *text,
		       enum kd_color c);
/* A notice box that does not take the key that closes it: Esc, Enter or
 * space only close it; any other key closes it and is then handled as if
 * the box had not been there (r runs the checks, d records a deviation). */
void kd_dialog_notice(struct kd_screen *scr, const char *title, const char *text,
		      enum kd_color c);
/* y/n question: 1 yes, 0 no or Esc. */
int kd_dialog_confirm(struct kd_screen *scr, const char *title, const char *text);
/* Pick one of choices ("|"-separated); returns the index or -1. */
int kd_dialog_choose(struct kd_screen *scr, const char *title, const char *choices, int cur);
/* The deviation dialog for a row of the current stage: KD_* flags. */
unsigned kd_dialog_deviation(struct kd_screen *scr, const struct kd_row *row);
/* The notes of the current stage, with a line to add one: KD_* flags. */
unsigned kd_dialog_notes(struct kd_screen *scr);
/* The list editor of a KD_FIELD_LIST field (list.c): KD_* flags, with
 * KD_SAVE when the list changed (the caller commits). */
unsigned kd_dialog_list(struct kd_screen *scr, const struct kd_field *f, json_t *root,
			const char *path);

/* --- fleet.c: the fleet matrix (stages 2 and 5) --- */
/* Add the "fleet: N nodes, K differ" info row when a fleet folder exists. */
void kd_fleet_enter(struct kd_screen *scr);
/* F: the matrix view; KD_* flags (0 for other keys). */
unsigned kd_fleet_key(struct kd_screen *scr, int key, int action);

/* --- detail.c --- */
unsigned kd_detail_run(struct kd_screen *scr, size_t row);

/* --- help.c: the help overlay and the key bar, from KD_KEY_INFO --- */
void kd_help_run(struct kd_screen *scr);
void kd_keybar_draw(struct kd_screen *scr, int y, int context);

/* --- external.c --- */
/* Open reference.yaml in $EDITOR and reload it: KD_* flags. */
unsigned kd_edit_reference(struct kd_screen *scr);
/* Read reference.yaml again (after E, or when another editor changed it:
 * who says so in the message, "" or " outside the walkthrough"): a new
 * identity makes the checked stages stale, a file that does not load
 * keeps the last valid reference (ref_broken).  KD_* flags. */
unsigned kd_reference_reread(struct kd_screen *scr, const char *who);
/* Open a file in $PAGER. */
void kd_open_pager(struct kd_screen *scr, const char *path);

#endif
