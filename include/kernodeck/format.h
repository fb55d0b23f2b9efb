/*
 * format.h - the output formats of the headless commands: text for a
 * person, YAML and JSON for a program.  The reporter (report.h), the tree
 * writer (treeout.h), the parsers' printers (inspect.h) and the fleet's
 * matrix all take one; it sits on the bottom floor so that none of them
 * needs another's header for it.
 */
#ifndef KD_FORMAT_H
#define KD_FORMAT_H

enum kd_format { KD_FMT_TEXT, KD_FMT_YAML, KD_FMT_JSON };

#endif
