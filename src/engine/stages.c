/*
 * stages.c - the tables of the one list of stages (include/kernodeck/stages.h)
 * that need no stage's code: the ids the state file is keyed by, the
 * observation files, the count in words.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "kernodeck/stages.h"

#define KD_STAGE_ID_(id, file, keys) #id,
#define KD_STAGE_FILE_(id, file, keys) file,
const char *const kd_stage_ids[KD_NSTAGES] = { KD_STAGE_LIST(KD_STAGE_ID_) };
static const char *const obs_files[KD_NSTAGES] = { KD_STAGE_LIST(KD_STAGE_FILE_) };

int
stage_index(const char *id)
{
	for (int i = 0; i < KD_NSTAGES; i++)
		if (id != NULL && strcmp(kd_stage_ids[i], id) == 0)
			return i;
	return -1;
}

const char *
stage_id_list(char *buf, size_t len, const char *sep)
{
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < KD_NSTAGES && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? sep : "", kd_stage_ids[i]);
	return buf;
}

const char *
stage_obs_file(int i)
{
	return i >= 0 && i < KD_NSTAGES ? obs_files[i] : NULL;
}

const char *
stage_count_word(void)
{
	static const char *const words[] = { "no", "one", "two", "three", "four", "five",
		"six", "seven", "eight", "nine", "ten", "eleven", "twelve" };
	static char digits[16];

	if ((size_t)KD_NSTAGES < sizeof words / sizeof words[0])
		return words[KD_NSTAGES];
	snprintf(digits, sizeof digits, "%d", KD_NSTAGES);
	return digits;
}
