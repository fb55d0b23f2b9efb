/*
 * keys.h - every key of the walkthrough, in one table.
 *
 * KD_KEY_INFO(X) lists each key binding once:
 *
 *   X(action, context, names, code1, code2, code3, bar, help)
 *
 *   action   the enum constant the frame dispatches on (KD_A_*);
 *   context  where the binding applies (KD_KC_*): a binding of context
 *            KD_KC_ANY applies wherever the view does not bind the code
 *            itself, except in the line editor;
 *   names    how a person types it ("Up, k"), as printed by the help overlay
 *            and the man page;
 *   code1-3  the key codes (0: none): a character is its Unicode code point,
 *            a function key KD_K_* (the ncurses KEY_* value with KD_KFUNC
 *            set, so that no code point is ever mistaken for a key; the
 *            values are checked against <curses.h> in screen.h);
 *   bar      the short label of the key bar, or NULL when it is not shown;
 *   help     one line for the help overlay and the man page.
 *
 * The help overlay (screens/help.c) and the man page's KEYS section
 * (tools/mankeys.c) are both generated from this list; the frame builds its
 * key map from it (screens/tui.c).  No curses header is needed here.
 *
 * Stage actions (struct kd_action in stage.h) use lowercase letters that the
 * frame does not bind in KD_KC_MAIN or KD_KC_ANY: kd_key_reserved() says
 * which.
 */
#ifndef KD_KEYS_H
#define KD_KEYS_H

/* Function keys: ncurses' KEY_* values with a high bit set. */
#define KD_KFUNC        0x1000000
#define KD_K_DOWN       (KD_KFUNC | 0402)
#define KD_K_UP         (KD_KFUNC | 0403)
#define KD_K_LEFT       (KD_KFUNC | 0404)
#define KD_K_RIGHT      (KD_KFUNC | 0405)
#define KD_K_HOME       (KD_KFUNC | 0406)
#define KD_K_BACKSPACE  (KD_KFUNC | 0407)
#define KD_K_F(n)       (KD_KFUNC | (0410 + (n)))
#define KD_K_DC         (KD_KFUNC | 0512)
#define KD_K_IC         (KD_KFUNC | 0513)
#define KD_K_NPAGE      (KD_KFUNC | 0522)
#define KD_K_PPAGE      (KD_KFUNC | 0523)
#define KD_K_ENTER      (KD_KFUNC | 0527)
#define KD_K_BTAB       (KD_KFUNC | 0541)
#define KD_K_END        (KD_KFUNC | 0550)
#define KD_K_RESIZE     (KD_KFUNC | 0632)
#define KD_K_CTRL(c)    ((c) & 0x1f)
#define KD_K_ESC        27
#define KD_K_DEL        127

/* Where a binding applies. */
#define KD_KEY_CONTEXT_INFO(X) \
	X(KD_KC_ANY,    "Everywhere") \
	X(KD_KC_MAIN,   "Stage screen") \
	X(KD_KC_DETAIL, "Check detail") \
	X(KD_KC_LIST,   "List of items") \
	X(KD_KC_EDIT,   "Line editor") \
	X(KD_KC_DIALOG, "Dialogs")

#define KD_KC_ENUM(e, title) e,
enum kd_key_context { KD_KEY_CONTEXT_INFO(KD_KC_ENUM) KD_KC__COUNT };
#undef KD_KC_ENUM

#define KD_KEY_INFO(X) \
	X(KD_A_UP,        KD_KC_ANY, "Up, k", KD_K_UP, 'k', 0, NULL, \
	  "move up in the focused pane") \
	X(KD_A_DOWN,      KD_KC_ANY, "Down, j", KD_K_DOWN, 'j', 0, NULL, \
	  "move down in the focused pane") \
	X(KD_A_PGUP,      KD_KC_ANY, "PgUp", KD_K_PPAGE, 0, 0, NULL, \
	  "one page up") \
	X(KD_A_PGDN,      KD_KC_ANY, "PgDn, Space", KD_K_NPAGE, ' ', 0, NULL, \
	  "one page down") \
	X(KD_A_HOME,      KD_KC_ANY, "Home, g", KD_K_HOME, 'g', 0, NULL, \
	  "go to the first line") \
	X(KD_A_END,       KD_KC_ANY, "End, G", KD_K_END, 'G', 0, NULL, \
	  "go to the last line") \
	X(KD_A_CLOSE,     KD_KC_ANY, "Esc", KD_K_ESC, 0, 0, "back", \
	  "close the dialog, help or detail; cancel a running stage") \
	X(KD_A_HELP,      KD_KC_ANY, "?, F1", '?', KD_K_F(1), 0, "help", \
	  "show this help") \
	X(KD_A_REDRAW,    KD_KC_ANY, "Ctrl-L", KD_K_CTRL('l'), 0, 0, NULL, \
	  "redraw the screen") \
	X(KD_A_FOCUS,     KD_KC_MAIN, "Tab", '\t', 0, 0, NULL, \
	  "move between fields, checks and log") \
	X(KD_A_FOCUS_BACK, KD_KC_MAIN, "Shift-Tab", KD_K_BTAB, 0, 0, NULL, \
	  "move between fields, checks and log, backwards") \
	X(KD_A_OPEN,      KD_KC_MAIN, "Enter", '\n', '\r', KD_K_ENTER, NULL, \
	  "edit the selected field, or open the selected check's detail") \
	X(KD_A_EDIT,      KD_KC_MAIN, "e, F2", 'e', KD_K_F(2), 0, "edit", \
	  "edit the selected field") \
	X(KD_A_NA,        KD_KC_MAIN, "-", '-', 0, 0, NULL, \
	  "mark the selected field not applicable (asks why), or undo it") \
	X(KD_A_RUN,       KD_KC_MAIN, "r, F5", 'r', KD_K_F(5), 0, "run", \
	  "run the stage's checks (Esc cancels)") \
	X(KD_A_DEVIATE,   KD_KC_MAIN, "d, F6", 'd', KD_K_F(6), 0, "deviate", \
	  "record a deviation for the selected failing check") \
	X(KD_A_PREV,      KD_KC_MAIN, "p, F7", 'p', KD_K_F(7), 0, "prev", \
	  "go to the previous stage (always allowed)") \
	X(KD_A_NEXT,      KD_KC_MAIN, "n, F8", 'n', KD_K_F(8), 0, "next", \
	  "go to the next stage (once this one passed or each failing check has a deviation)") \
	X(KD_A_NOTE,      KD_KC_MAIN, "N", 'N', 0, 0, NULL, \
	  "read this stage's notes and add one") \
	X(KD_A_EDITREF,   KD_KC_MAIN, "E", 'E', 0, 0, NULL, \
	  "open reference.yaml in $EDITOR; it is checked when the editor closes") \
	X(KD_A_QUIT,      KD_KC_MAIN, "q, F10", 'q', KD_K_F(10), 0, "quit", \
	  "quit (the state is already saved)") \
	X(KD_A_FLEET,     KD_KC_MAIN, "F", 'F', 0, 0, NULL, \
	  "stages 2 and 5: open the matrix of the last kernodeck fleet (Enter on a cell: that node's evidence)") \
	X(KD_A_PASTE,     KD_KC_MAIN, "P", 'P', 0, 0, NULL, \
	  "stage 2: import a colleague's paste (collect_env, nvidia-smi, pip freeze) and compare it with this machine") \
	X(KD_A_BISECT,    KD_KC_MAIN, "B", 'B', 0, 0, NULL, \
	  "stage 6: why the sample differs from a dossier's (the last replay's, or one given): run kernodeck bisect and show its table") \
	X(KD_A_PAGER,     KD_KC_DETAIL, "o", 'o', 0, 0, "pager", \
	  "open the evidence file in $PAGER") \
	X(KD_A_SEARCH,    KD_KC_DETAIL, "/", '/', 0, 0, "search", \
	  "search the log excerpt") \
	X(KD_A_SEARCH_NEXT, KD_KC_DETAIL, "n", 'n', 0, 0, NULL, \
	  "next match of the search") \
	X(KD_A_DETAIL_DEV, KD_KC_DETAIL, "d, F6", 'd', KD_K_F(6), 0, "deviate", \
	  "record a deviation for this check") \
	X(KD_A_WITHDRAW,  KD_KC_DETAIL, "W", 'W', 0, 0, "withdraw", \
	  "take back this check's deviation (asks first)") \
	X(KD_A_ADD,       KD_KC_LIST, "a, Insert", 'a', KD_K_IC, 0, "add", \
	  "add an item") \
	X(KD_A_ITEM_EDIT, KD_KC_LIST, "Enter, e", '\n', '\r', 'e', "edit", \
	  "edit the selected item") \
	X(KD_A_REMOVE,    KD_KC_LIST, "x, Delete", 'x', KD_K_DC, 0, "remove", \
	  "remove the selected item (asks first)") \
	X(KD_A_ACCEPT,    KD_KC_EDIT, "Enter", '\n', '\r', KD_K_ENTER, "ok", \
	  "accept the text") \
	X(KD_A_CANCEL,    KD_KC_EDIT, "Esc", KD_K_ESC, 0, 0, "cancel", \
	  "cancel the edit, keeping the old value") \
	X(KD_A_LEFT,      KD_KC_EDIT, "Left, Ctrl-B", KD_K_LEFT, KD_K_CTRL('b'), 0, NULL, \
	  "move the cursor left") \
	X(KD_A_RIGHT,     KD_KC_EDIT, "Right, Ctrl-F", KD_K_RIGHT, KD_K_CTRL('f'), 0, NULL, \
	  "move the cursor right") \
	X(KD_A_BOL,       KD_KC_EDIT, "Home, Ctrl-A", KD_K_HOME, KD_K_CTRL('a'), 0, NULL, \
	  "go to the start of the line") \
	X(KD_A_EOL,       KD_KC_EDIT, "End, Ctrl-E", KD_K_END, KD_K_CTRL('e'), 0, NULL, \
	  "go to the end of the line") \
	X(KD_A_BKSP,      KD_KC_EDIT, "Backspace, Ctrl-H", KD_K_BACKSPACE, KD_K_DEL, KD_K_CTRL('h'), NULL, \
	  "delete the character before the cursor") \
	X(KD_A_DELCH,     KD_KC_EDIT, "Delete, Ctrl-D", KD_K_DC, KD_K_CTRL('d'), 0, NULL, \
	  "delete the character under the cursor") \
	X(KD_A_KILL_BOL,  KD_KC_EDIT, "Ctrl-U", KD_K_CTRL('u'), 0, 0, NULL, \
	  "delete to the start of the line") \
	X(KD_A_KILL_EOL,  KD_KC_EDIT, "Ctrl-K", KD_K_CTRL('k'), 0, 0, NULL, \
	  "delete to the end of the line") \
	X(KD_A_DLG_NEXT,  KD_KC_DIALOG, "Down, Tab", KD_K_DOWN, '\t', 0, NULL, \
	  "next choice (Enter takes it)") \
	X(KD_A_DLG_PREV,  KD_KC_DIALOG, "Up, Shift-Tab", KD_K_UP, KD_K_BTAB, 0, NULL, \
	  "previous choice") \
	X(KD_A_YES,       KD_KC_DIALOG, "y", 'y', 'Y', 0, NULL, \
	  "answer yes (in the deviation dialog: intentional, a variant of the reference)") \
	X(KD_A_NO,        KD_KC_DIALOG, "n", 'n', 'N', 0, NULL, \
	  "answer no (in the deviation dialog: to be fixed)")

#define KD_A_ENUM(a, ctx, names, c1, c2, c3, bar, help) a,
enum kd_action_id { KD_A_NONE = 0, KD_KEY_INFO(KD_A_ENUM) KD_A__COUNT };
#undef KD_A_ENUM

/* 1 when the frame binds code on the stage screen, so that a stage action
 * must not use it. */
static inline int
kd_key_reserved(int code)
{
#define KD_A_RES(a, ctx, names, c1, c2, c3, bar, help) \
	if (((ctx) == KD_KC_ANY || (ctx) == KD_KC_MAIN) && \
	    ((c1) == code || (c2) == code || (c3) == code)) \
		return 1;
	if (code == 0)
		return 0;
	KD_KEY_INFO(KD_A_RES)
#undef KD_A_RES
	return 0;
}

#endif
