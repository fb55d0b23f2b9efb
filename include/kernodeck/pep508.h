/*
 * pep508.h - environment markers (PEP 508, as packaging and pip read them):
 * the grammar checked strictly, so that the requirements reader refuses
 * what pip refuses, with the reason.
 *
 *   marker    = and_expr ('or' and_expr)*
 *   and_expr  = expr ('and' expr)*
 *   expr      = '(' marker ')' | value op value
 *   value     = a variable | a quoted string ('...' or "...")
 *   op        = <= < != == >= > ~= === | in | not in
 *   variables = python_version python_full_version os_name sys_platform
 *               platform_release platform_system platform_version
 *               platform_machine platform_python_implementation
 *               implementation_name implementation_version extra
 *
 * An unknown variable, an unquoted version (python_version >= 3.8), a
 * dangling and/or, unbalanced parentheses, a comparison of two strings or
 * of two variables, and a ';' inside the marker are refused.
 */
#ifndef KD_PEP508_H
#define KD_PEP508_H

#include <stddef.h>

/* 0 when m (without the ';' before it) is a marker; -1 with why (a
 * sentence) otherwise. */
int pep508_marker_check(const char *m, char *why, size_t len);

#endif
