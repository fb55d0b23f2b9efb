/* test-toml.c - the TOML 1.0 reader (src/formats/toml.c) on the examples of
 * the specification (https://toml.io/en/v1.0.0), valid and invalid, each
 * valid one compared with the tree it must give, each invalid one with the
 * line the error must name; and the lock files read through it
 * (src/formats/pylock.c: PEP 751 pylock.toml, uv.lock) as inventories. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernodeck/inventory.h"
#include "kernodeck/pylock.h"
#include "kernodeck/toml.h"

struct good {
	const char *toml, *json;
};

/* Each example of the specification that is valid, with its tree as JSON. */
static const struct good goods[] = {
	/* Comment */
	{ "# This is a full-line comment\nkey = \"value\"  # This is a comment at the end of a line\n"
	  "another = \"# This is not a comment\"\n",
	  "{\"key\":\"value\",\"another\":\"# This is not a comment\"}" },
	/* Keys */
	{ "key = \"value\"\nbare_key = \"value\"\nbare-key = \"value\"\n1234 = \"value\"\n",
	  "{\"key\":\"value\",\"bare_key\":\"value\",\"bare-key\":\"value\",\"1234\":\"value\"}" },
	{ "\"127.0.0.1\" = \"value\"\n\"character encoding\" = \"value\"\n\"ʎǝʞ\" = \"value\"\n"
	  "'key2' = \"value\"\n'quoted \"value\"' = \"value\"\n",
	  "{\"127.0.0.1\":\"value\",\"character encoding\":\"value\",\"ʎǝʞ\":\"value\","
	  "\"key2\":\"value\",\"quoted \\\"value\\\"\":\"value\"}" },
	{ "\"\" = \"blank\"\n", "{\"\":\"blank\"}" },
	{ "name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\n"
	  "site.\"google.com\" = true\n",
	  "{\"name\":\"Orange\",\"physical\":{\"color\":\"orange\",\"shape\":\"round\"},"
	  "\"site\":{\"google.com\":true}}" },
	{ "fruit.name = \"banana\"     # this is best practice\nfruit. color = \"yellow\"    # same as fruit.color\n"
	  "fruit . flavor = \"banana\"   # same as fruit.flavor\n",
	  "{\"fruit\":{\"name\":\"banana\",\"color\":\"yellow\",\"flavor\":\"banana\"}}" },
	{ "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\norange.skin = \"thick\"\n",
	  "{\"apple\":{\"type\":\"fruit\",\"skin\":\"thin\"},\"orange\":{\"type\":\"fruit\",\"skin\":\"thick\"}}" },
	{ "3.14159 = \"pi\"\n", "{\"3\":{\"14159\":\"pi\"}}" },
	/* String */
	{ "str = \"I'm a string. \\\"You can quote me\\\". Name\\tJos\\u00E9\\nLocation\\tSF.\"\n",
	  "{\"str\":\"I'm a string. \\\"You can quote me\\\". Name\\tJosé\\nLocation\\tSF.\"}" },
	{ "str1 = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n",
	  "{\"str1\":\"Roses are red\\nViolets are blue\"}" },
	{ "str1 = \"The quick brown fox jumps over the lazy dog.\"\n"
	  "str2 = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"\n"
	  "str3 = \"\"\"\\\n       The quick brown \\\n       fox jumps over \\\n       the lazy dog.\\\n       \"\"\"\n",
	  "{\"str1\":\"The quick brown fox jumps over the lazy dog.\","
	  "\"str2\":\"The quick brown fox jumps over the lazy dog.\","
	  "\"str3\":\"The quick brown fox jumps over the lazy dog.\"}" },
	{ "str4 = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n"
	  "str5 = \"\"\"Here are three quotation marks: \"\"\\\".\"\"\"\n"
	  "str6 = \"\"\"Here are fifteen quotation marks: \"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\".\"\"\"\n"
	  "str7 = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n",
	  "{\"str4\":\"Here are two quotation marks: \\\"\\\". Simple enough.\","
	  "\"str5\":\"Here are three quotation marks: \\\"\\\"\\\".\","
	  "\"str6\":\"Here are fifteen quotation marks: \\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\".\","
	  "\"str7\":\"\\\"This,\\\" she said, \\\"is just a pointless statement.\\\"\"}" },
	{ "winpath  = 'C:\\Users\\nodejs\\templates'\nwinpath2 = '\\\\ServerX\\admin$\\system32\\'\n"
	  "quoted   = 'Tom \"Dubs\" Preston-Werner'\nregex    = '<\\i\\c*\\s*>'\n",
	  "{\"winpath\":\"C:\\\\Users\\\\nodejs\\\\templates\",\"winpath2\":\"\\\\\\\\ServerX\\\\admin$\\\\system32\\\\\","
	  "\"quoted\":\"Tom \\\"Dubs\\\" Preston-Werner\",\"regex\":\"<\\\\i\\\\c*\\\\s*>\"}" },
	{ "regex2 = '''I [dw]on't need \\d{2} apples'''\nlines  = '''\nThe first newline is\n"
	  "trimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''\n",
	  "{\"regex2\":\"I [dw]on't need \\\\d{2} apples\",\"lines\":\"The first newline is\\n"
	  "trimmed in raw strings.\\n   All other whitespace\\n   is preserved.\\n\"}" },
	{ "quot15 = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\n"
	  "apos15 = \"Here are fifteen apostrophes: '''''''''''''''\"\n"
	  "str = ''''That,' she said, 'is still pointless.''''\n",
	  "{\"quot15\":\"Here are fifteen quotation marks: \\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\","
	  "\"apos15\":\"Here are fifteen apostrophes: '''''''''''''''\","
	  "\"str\":\"'That,' she said, 'is still pointless.'\"}" },
	{ "crlf = \"\"\"\r\none\r\ntwo\"\"\"\r\n", "{\"crlf\":\"one\\ntwo\"}" },
	{ "u = \"\\U0001F600\"\n", "{\"u\":\"\xF0\x9F\x98\x80\"}" },
	/* Integer */
	{ "int1 = +99\nint2 = 42\nint3 = 0\nint4 = -17\nint5 = 1_000\nint6 = 5_349_221\n"
	  "int7 = 53_49_221\nint8 = 1_2_3_4_5\n",
	  "{\"int1\":99,\"int2\":42,\"int3\":0,\"int4\":-17,\"int5\":1000,\"int6\":5349221,"
	  "\"int7\":5349221,\"int8\":12345}" },
	{ "hex1 = 0xDEADBEEF\nhex2 = 0xdeadbeef\nhex3 = 0xdead_beef\noct1 = 0o01234567\n"
	  "oct2 = 0o755\nbin1 = 0b11010110\n",
	  "{\"hex1\":3735928559,\"hex2\":3735928559,\"hex3\":3735928559,\"oct1\":342391,"
	  "\"oct2\":493,\"bin1\":214}" },
	{ "max = 9223372036854775807\nmin = -9223372036854775808\n",
	  "{\"max\":9223372036854775807,\"min\":-9223372036854775808}" },
	/* Float */
	{ "flt1 = +1.0\nflt2 = 3.1415\nflt3 = -0.01\nflt4 = 5e+22\nflt5 = 1e06\nflt6 = -2E-2\n"
	  "flt7 = 6.626e-34\nflt8 = 224_617.445_991_228\n",
	  "{\"flt1\":1.0,\"flt2\":3.1415,\"flt3\":-0.01,\"flt4\":5e22,\"flt5\":1e6,\"flt6\":-0.02,"
	  "\"flt7\":6.626e-34,\"flt8\":224617.445991228}" },
	{ "sf1 = inf\nsf2 = +inf\nsf3 = -inf\nsf4 = nan\nsf5 = +nan\nsf6 = -nan\n",
	  "{\"sf1\":\"inf\",\"sf2\":\"inf\",\"sf3\":\"-inf\",\"sf4\":\"nan\",\"sf5\":\"nan\",\"sf6\":\"nan\"}" },
	/* Boolean */
	{ "bool1 = true\nbool2 = false\n", "{\"bool1\":true,\"bool2\":false}" },
	/* Date-times */
	{ "odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\n"
	  "odt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z\n"
	  "ldt1 = 1979-05-27T07:32:00\nld1 = 1979-05-27\nlt1 = 07:32:00\nlt2 = 00:32:00.999999\n"
	  "leap = 2024-02-29\n",
	  "{\"odt1\":\"1979-05-27T07:32:00Z\",\"odt2\":\"1979-05-27T00:32:00-07:00\","
	  "\"odt3\":\"1979-05-27T00:32:00.999999-07:00\",\"odt4\":\"1979-05-27T07:32:00Z\","
	  "\"ldt1\":\"1979-05-27T07:32:00\",\"ld1\":\"1979-05-27\",\"lt1\":\"07:32:00\","
	  "\"lt2\":\"00:32:00.999999\",\"leap\":\"2024-02-29\"}" },
	/* Array */
	{ "integers = [ 1, 2, 3 ]\ncolors = [ \"red\", \"yellow\", \"green\" ]\n"
	  "nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]\n"
	  "nested_mixed_array = [ [ 1, 2 ], [\"a\", \"b\", \"c\"] ]\n"
	  "string_array = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\n"
	  "numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\n"
	  "contributors = [\n  \"Foo Bar <foo@example.com>\",\n"
	  "  { name = \"Baz Qux\", email = \"bazqux@example.com\", url = \"https://example.com/bazqux\" }\n]\n",
	  "{\"integers\":[1,2,3],\"colors\":[\"red\",\"yellow\",\"green\"],"
	  "\"nested_arrays_of_ints\":[[1,2],[3,4,5]],\"nested_mixed_array\":[[1,2],[\"a\",\"b\",\"c\"]],"
	  "\"string_array\":[\"all\",\"strings\",\"are the same\",\"type\"],"
	  "\"numbers\":[0.1,0.2,0.5,1,2,5],\"contributors\":[\"Foo Bar <foo@example.com>\","
	  "{\"name\":\"Baz Qux\",\"email\":\"bazqux@example.com\",\"url\":\"https://example.com/bazqux\"}]}" },
	{ "integers2 = [\n  1, 2, 3\n]\n\nintegers3 = [\n  1,\n  2, # this is ok\n]\n",
	  "{\"integers2\":[1,2,3],\"integers3\":[1,2]}" },
	/* Table */
	{ "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = \"another string\"\nkey2 = 456\n",
	  "{\"table-1\":{\"key1\":\"some string\",\"key2\":123},"
	  "\"table-2\":{\"key1\":\"another string\",\"key2\":456}}" },
	{ "[dog.\"tater.man\"]\ntype.name = \"pug\"\n",
	  "{\"dog\":{\"tater.man\":{\"type\":{\"name\":\"pug\"}}}}" },
	{ "[a.b.c]            # this is best practice\n[ d.e.f ]          # same as [d.e.f]\n"
	  "[ g .  h  . i ]    # same as [g.h.i]\n[ j . \"ʞ\" . 'l' ]  # same as [j.\"ʞ\".'l']\n",
	  "{\"a\":{\"b\":{\"c\":{}}},\"d\":{\"e\":{\"f\":{}}},\"g\":{\"h\":{\"i\":{}}},"
	  "\"j\":{\"ʞ\":{\"l\":{}}}}" },
	{ "# [x] you\n# [x.y] don't\n# [x.y.z] need these\n[x.y.z.w] # for this to work\n\n"
	  "[x] # defining a super-table afterward is ok\n",
	  "{\"x\":{\"y\":{\"z\":{\"w\":{}}}}}" },
	{ "# VALID BUT DISCOURAGED\n[fruit.apple]\n[animal]\n[fruit.orange]\n",
	  "{\"fruit\":{\"apple\":{},\"orange\":{}},\"animal\":{}}" },
	{ "# Top-level table begins.\nname = \"Fido\"\nbreed = \"pug\"\n\n# Top-level table ends.\n"
	  "[owner]\nname = \"Regina Dogman\"\nmember_since = 1999-08-04\n",
	  "{\"name\":\"Fido\",\"breed\":\"pug\",\"owner\":{\"name\":\"Regina Dogman\","
	  "\"member_since\":\"1999-08-04\"}}" },
	{ "fruit.apple.color = \"red\"\n# Defines a table named fruit\n# Defines a table named fruit.apple\n\n"
	  "fruit.apple.taste.sweet = true\n",
	  "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true}}}}" },
	{ "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple.texture]  # you can add sub-tables\nsmooth = true\n",
	  "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},\"texture\":{\"smooth\":true}}}}" },
	/* Inline Table */
	{ "name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\n"
	  "animal = { type.name = \"pug\" }\n",
	  "{\"name\":{\"first\":\"Tom\",\"last\":\"Preston-Werner\"},\"point\":{\"x\":1,\"y\":2},"
	  "\"animal\":{\"type\":{\"name\":\"pug\"}}}" },
	{ "[product]\ntype.name = \"Nail\"\n", "{\"product\":{\"type\":{\"name\":\"Nail\"}}}" },
	/* Array of Tables */
	{ "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty table within the array\n\n"
	  "[[products]]\nname = \"Nail\"\nsku = 284758393\n\ncolor = \"gray\"\n",
	  "{\"products\":[{\"name\":\"Hammer\",\"sku\":738594937},{},"
	  "{\"name\":\"Nail\",\"sku\":284758393,\"color\":\"gray\"}]}" },
	{ "[[fruits]]\nname = \"apple\"\n\n[fruits.physical]  # subtable\ncolor = \"red\"\nshape = \"round\"\n\n"
	  "[[fruits.varieties]]  # nested array of tables\nname = \"red delicious\"\n\n"
	  "[[fruits.varieties]]\nname = \"granny smith\"\n\n\n[[fruits]]\nname = \"banana\"\n\n"
	  "[[fruits.varieties]]\nname = \"plantain\"\n",
	  "{\"fruits\":[{\"name\":\"apple\",\"physical\":{\"color\":\"red\",\"shape\":\"round\"},"
	  "\"varieties\":[{\"name\":\"red delicious\"},{\"name\":\"granny smith\"}]},"
	  "{\"name\":\"banana\",\"varieties\":[{\"name\":\"plantain\"}]}]}" },
	{ "points = [ { x = 1, y = 2, z = 3 },\n           { x = 7, y = 8, z = 9 },\n"
	  "           { x = 2, y = 4, z = 8 } ]\n",
	  "{\"points\":[{\"x\":1,\"y\":2,\"z\":3},{\"x\":7,\"y\":8,\"z\":9},{\"x\":2,\"y\":4,\"z\":8}]}" },
	/* an empty document, a document without its last newline, a BOM */
	{ "", "{}" },
	{ "a = 1", "{\"a\":1}" },
	{ "\xEF\xBB\xBF" "a = 1\n", "{\"a\":1}" },
};

struct bad {
	const char *toml;
	int line;        /* the line the error must name */
	const char *msg; /* a part of the message */
};

/* The specification's invalid examples, and the rules it states. */
static const struct bad bads[] = {
	{ "key = # INVALID\n", 1, "value" },
	{ "first = \"Tom\" last = \"Preston-Werner\" # INVALID\n", 1, "end of the line" },
	{ "= \"no key name\"  # INVALID\n", 1, "key" },
	{ "\"\"\" = \"no key name\"\n", 1, "" },
	{ "# DO NOT DO THIS\nname = \"Tom\"\nname = \"Pradyun\"\n", 3, "twice" },
	{ "# THIS WILL NOT WORK\nspelling = \"favorite\"\n\"spelling\" = \"favourite\"\n", 3, "twice" },
	{ "# This makes the key \"fruit\" into a table.\nfruit.apple.smooth = true\n\n"
	  "# So then you can add to the table \"fruit\" like so:\nfruit.orange = 2\n\n"
	  "# THE FOLLOWING IS INVALID\nfruit.apple = 1\n", 8, "twice" },
	{ "fruit.apple = 1\nfruit.apple.smooth = true\n", 2, "already defined" },
	{ "str = \"bad \\q escape\"\n", 1, "escape" },
	{ "str = \"\\uD800\"\n", 1, "scalar" },
	{ "str = \"one\ntwo\"\n", 1, "newline" },
	{ "str = 'ctl\x01'\n", 1, "control" },
	{ "str = \"\"\"abc\"\"\"\"\"\"\n", 1, "" },
	{ "apos15 = '''Here are fifteen apostrophes: ''''''''''''''''''  # INVALID\n", 1, "" },
	{ "open = \"never closed\n", 1, "" },
	{ "bad = \"\xC3\x28\"\n", 1, "UTF-8" },
	{ "# comment \x7F\n", 1, "control" },
	{ "a = 1\rb = 2\n", 1, "carriage" },
	{ "int = 1__000\n", 1, "underscore" },
	{ "int = _1000\n", 1, "value" },
	{ "int = 1000_\n", 1, "underscore" },
	{ "int = 0123\n", 1, "leading zero" },
	{ "int = +0x1F\n", 1, "sign" },
	{ "int = 9223372036854775808\n", 1, "range" },
	{ "int = 0xFFFFFFFFFFFFFFFFF\n", 1, "range" },
	{ "invalid_float_1 = .7\n", 1, "value" },
	{ "invalid_float_2 = 7.\n", 1, "decimal point" },
	{ "invalid_float_3 = 3.e+20\n", 1, "decimal point" },
	{ "f = 1e\n", 1, "exponent" },
	{ "b = True\n", 1, "value" },
	{ "d = 1979-02-29\n", 1, "does not exist" },
	{ "d = 1979-13-01\n", 1, "does not exist" },
	{ "t = 24:00:00\n", 1, "does not exist" },
	{ "t = 07:32\n", 1, "HH:MM:SS" },
	{ "d = 1979-05-27T07:32:00+7\n", 1, "offset" },
	{ "a = [1, 2\n", 2, "" },
	{ "a = [1,,2]\n", 1, "" },
	{ "# DO NOT DO THIS\n\n[fruit]\napple = \"red\"\n\n[fruit]\norange = \"orange\"\n", 6, "twice" },
	{ "# DO NOT DO THIS EITHER\n\n[fruit]\napple = \"red\"\n\n[fruit.apple]\ntexture = \"smooth\"\n",
	  6, "already defined" },
	{ "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple]  # INVALID\n", 5,
	  "twice" },
	{ "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple.taste]  # INVALID\n",
	  5, "twice" },
	{ "[product]\ntype = { name = \"Nail\" }\ntype.edible = false  # INVALID\n", 3, "already defined" },
	{ "[product]\ntype.name = \"Nail\"\n# type = { edible = false }  # INVALID\ntype = { edible = false }\n",
	  4, "twice" },
	{ "a = { b = 1 }\n[a.c]\n", 2, "value" },
	{ "inline = { a = 1,\n b = 2 }\n", 1, "" },
	{ "inline = { a = 1, }\n", 1, "trailing comma" },
	{ "# INVALID TOML DOC\n[fruit.physical]  # subtable, but to which parent element should it belong?\n"
	  "color = \"red\"\nshape = \"round\"\n\n[[fruit]]  # parser must throw an error upon discovering that \"fruit\" is\n"
	  "          # a table rather than an array of tables\nname = \"apple\"\n", 6, "table" },
	{ "# INVALID TOML DOC\nfruits = []\n\n[[fruits]] # Not allowed\n", 4, "array written as a value" },
	{ "# INVALID TOML DOC\n[[fruits]]\nname = \"apple\"\n\n[[fruits.varieties]]\nname = \"red delicious\"\n\n"
	  "# INVALID: This table conflicts with the previous array of tables\n[fruits.varieties]\n"
	  "name = \"granny smith\"\n", 9, "array of tables" },
	{ "[[fruits]]\nname = \"apple\"\n\n[fruits.physical]\ncolor = \"red\"\n\n"
	  "# INVALID: This array of tables conflicts with the previous table\n[[fruits.physical]]\n"
	  "color = \"green\"\n", 8, "table" },
	{ "[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, "already defined" },
	{ "[table\n", 1, "close" },
	{ "[[table]\n", 1, "close" },
	{ "k = \"v\" \"w\"\n", 1, "end of the line" },
	{ "\"a\\u0000b\" = 1\n", 1, "NUL" },
};

static json_t *
must_parse(const char *toml)
{
	struct kd_err err = { 0 };
	json_t *t = NULL;

	if (toml_parse(toml, strlen(toml), "t.toml", &t, &err) != 0)
		fail_msg("refused:\n%s\n-> line %d: %s", toml, err.line, err.msg);
	return t;
}

static void
test_spec_valid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof goods / sizeof *goods; i++) {
		json_error_t je;
		json_t *want = json_loads(goods[i].json, JSON_DECODE_ANY, &je);
		json_t *got = must_parse(goods[i].toml);
		if (want == NULL)
			fail_msg("case %zu: expected JSON is bad: %s", i, je.text);
		if (!json_equal(want, got)) {
			char *g = json_dumps(got, JSON_COMPACT);
			fail_msg("case %zu:\n%s\ngot  %s\nwant %s", i, goods[i].toml, g, goods[i].json);
		}
		json_decref(want);
		json_decref(got);
	}
}

static void
test_spec_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
		struct kd_err err = { 0 };
		json_t *t = NULL;
		int rc = toml_parse(bads[i].toml, strlen(bads[i].toml), "bad.toml", &t, &err);
		if (rc != KD_EINPUT || t != NULL)
			fail_msg("case %zu accepted:\n%s", i, bads[i].toml);
		if (err.line != bads[i].line || strstr(err.msg, bads[i].msg) == NULL ||
		    strcmp(err.file, "bad.toml") != 0)
			fail_msg("case %zu:\n%s\n-> %s:%d: %s (want line %d, \"%s\")", i,
				 bads[i].toml, err.file, err.line, err.msg, bads[i].line, bads[i].msg);
	}
}

/* Key order is kept, and the tree of the specification's example document. */
static void
test_order_and_example(void **state)
{
	static const char doc[] =
		"# This is a TOML document\n\ntitle = \"TOML Example\"\n\n[owner]\n"
		"name = \"Tom Preston-Werner\"\ndob = 1979-05-27T07:32:00-08:00\n\n[database]\n"
		"enabled = true\nports = [ 8000, 8001, 8002 ]\ndata = [ [\"delta\", \"phi\"], [3.14] ]\n"
		"temp_targets = { cpu = 79.5, case = 72.0 }\n\n[servers]\n\n[servers.alpha]\n"
		"ip = \"10.0.0.1\"\nrole = \"frontend\"\n\n[servers.beta]\nip = \"10.0.0.2\"\n"
		"role = \"backend\"\n";
	json_t *t = must_parse(doc);
	const char *k;
	json_t *v;
	const char *order[] = { "title", "owner", "database", "servers" };
	size_t i = 0;

	(void)state;
	json_object_foreach(t, k, v)
		assert_string_equal(k, order[i++]);
	assert_int_equal(i, 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(t, "owner"), "dob")),
			    "1979-05-27T07:32:00-08:00");
	assert_true(json_real_value(json_object_get(json_object_get(json_object_get(t,
		"database"), "temp_targets"), "cpu")) == 79.5);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(t,
		"servers"), "beta"), "role")), "backend");
	json_decref(t);
}

/* Nesting is capped; a file is read with its name in errors. */
static void
test_depth_and_file(void **state)
{
	char deep[400], path[] = "/tmp/kd-toml-XXXXXX";
	struct kd_err err = { 0 };
	json_t *t = NULL;
	size_t n = 0;
	int fd;

	(void)state;
	n += (size_t)snprintf(deep, sizeof deep, "a = ");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	deep[n] = '\0';
	assert_int_equal(toml_parse(deep, n, "deep.toml", &t, &err), KD_EINPUT);
	assert_non_null(strstr(err.msg, "nested"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x = 1\ny = \n", 11), 11);
	close(fd);
	assert_int_equal(toml_load(path, &t, &err), KD_EINPUT);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 2);
	unlink(path);
	assert_int_equal(toml_load("/nonexistent/kd.toml", &t, &err), KD_EINPUT);
}

#define LOCKS KD_SRCDIR "/tests/fixtures/lock/"

static const json_t *
pkg(const json_t *pkgs, const char *cn)
{
	const json_t *p;
	size_t i;

	json_array_foreach(pkgs, i, p)
		if (strcmp(json_string_value(json_object_get(p, "canonical_name")), cn) == 0)
			return p;
	fail_msg("no package %s", cn);
	return NULL;
}

static const char *
field(const json_t *pkgs, const char *cn, const char *key)
{
	return json_string_value(json_object_get(pkg(pkgs, cn), key));
}

/* A hand-written pylock.toml and uv.lock read as inventories. */
static void
test_locks_as_inventories(void **state)
{
	struct kd_err err = { 0 };
	json_t *pk = NULL;
	const char *fmt = NULL;

	(void)state;
	if (inventory_load(LOCKS "pylock.toml", &pk, &fmt, &err) != 0)
		fail_msg("%s", err.msg);
	assert_string_equal(fmt, "pylock");
	assert_int_equal(json_array_size(pk), 6);
	assert_string_equal(field(pk, "attrs", "origin"), "index");
	assert_string_equal(field(pk, "attrs", "source"), "https://pypi.org/simple");
	assert_string_equal(field(pk, "attrs", "sha256"),
			    "99b87a485a5820b23b879f04c2305b44b951b502fd64be915879d77a7e8fc6f1");
	assert_string_equal(field(pk, "torch", "version"), "2.3.1+cpu");
	assert_string_equal(field(pk, "filelock", "sha256"),
			    "521f5f56c50f8426f5e03ad3b281b490a87ef15bc6c526f168290f0c7148d44e");
	assert_string_equal(field(pk, "tinylib", "kind"), "vcs");
	assert_string_equal(field(pk, "tinylib", "commit"), "0123456789abcdef0123456789abcdef01234567");
	assert_string_equal(field(pk, "localpkg", "kind"), "editable_local");
	assert_null(field(pk, "localpkg", "version"));
	assert_string_equal(field(pk, "archived", "origin"), "url");
	json_decref(pk);

	if (inventory_load(LOCKS "uv.lock", &pk, &fmt, &err) != 0)
		fail_msg("%s", err.msg);
	assert_string_equal(fmt, "uv-lock");
	assert_int_equal(json_array_size(pk), 4);
	assert_string_equal(field(pk, "demo-app", "kind"), "editable_local");
	assert_null(field(pk, "numpy", "sha256"));   /* an sdist and a wheel: no one digest */
	assert_string_equal(field(pk, "requests", "sha256"),
			    "58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f");
	assert_string_equal(field(pk, "requests", "source"), "https://pypi.org/simple");
	assert_string_equal(field(pk, "tinylib", "source"), "https://example.org/tinylib.git");
	assert_string_equal(field(pk, "tinylib", "commit"), "0123456789abcdef0123456789abcdef01234567");
	json_decref(pk);
}

/* What PEP 751 and uv refuse. */
static void
test_locks_refused(void **state)
{
	static const struct { const char *text, *msg; int uv; } bad[] = {
		{ "lock-version = \"1.0\"\n[[packages]]\nname = \"a\"\n", "created-by", 0 },
		{ "lock-version = \"2.0\"\ncreated-by = \"x\"\npackages = []\n", "lock-version", 0 },
		{ "lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nversion = \"1\"\n",
		  "without a name", 0 },
		{ "lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\n"
		  "vcs = {type = \"git\", url = \"u\", commit-id = \"c\"}\n"
		  "wheels = [{url = \"u\", hashes = {sha256 = \"0\"}}]\n", "more than one", 0 },
		{ "lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\n"
		  "wheels = [{url = \"u\"}]\n", "without hashes", 0 },
		{ "lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\n"
		  "sdist = {hashes = {sha256 = \"0\"}}\n", "without url or path", 0 },
		{ "lock-version = \"1.0\"\ncreated-by = \"x\"\n[[packages]]\nname = \"a\"\n"
		  "name = \"b\"\n", "twice", 0 },
		{ "version = 2\n[[package]]\nname = \"a\"\n", "version 1", 1 },
		{ "version = 1\n[[package]]\nname = \"a\"\n", "source", 1 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct kd_err err = { 0 };
		json_t *t = NULL;
		int rc = bad[i].uv ? uvlock_parse(bad[i].text, strlen(bad[i].text), "uv.lock", &t, &err)
				   : pylock_parse(bad[i].text, strlen(bad[i].text), "pylock.toml", &t,
						  &err);
		if (rc != KD_EINPUT || strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("case %zu: rc %d, \"%s\" (want \"%s\")", i, rc, err.msg, bad[i].msg);
		assert_null(t);
	}
	assert_string_equal(pylock_kind_of("/x/pylock.toml"), "pylock");
	assert_string_equal(pylock_kind_of("pylock.gpu.toml"), "pylock");
	assert_string_equal(pylock_kind_of("a/uv.lock"), "uv-lock");
	assert_null(pylock_kind_of("freeze.txt"));
	assert_null(pylock_kind_of("pylock.txt"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_valid),
		cmocka_unit_test(test_spec_invalid),
		cmocka_unit_test(test_order_and_example),
		cmocka_unit_test(test_depth_and_file),
		cmocka_unit_test(test_locks_as_inventories),
		cmocka_unit_test(test_locks_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
