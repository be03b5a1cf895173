/* The label rules (labels.h): the built-in ones, the files' ones, and what a
 * rule makes of a name it found. The built-in rules are written in the
 * users' format and parsed like a file: one table, one reader. */
#include "labels.h"
#include "textfile.h"
#include "term.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The libraries' own names (docs/labels.md): OTP 27's proc_lib:set_label/1;
 * RabbitMQ's process_name ({rabbit_amqqueue_process, QueueResource}, ...); an
 * Elixir Registry's unique keys ({Key, {Pid, Value}} rows of each partition's
 * key table, the Registry.Supervisor its partition's parent, registered as
 * the registry); gproc's local and global unique names ({{{n,Scope,Name},n},
 * Pid, Value} rows of its gproc table). */
static const char builtin[] =
	"dict '$process_label' source=process_label\n"
	"dict process_name source=process_name\n"
	"registry 'Elixir.Registry.Partition' arity=2 pid=2.1 name=1"
	" label=\"{:via, Registry, {%p, %n}}\" source=registry\n"
	"ets gproc pid=2 name=1.1 where=1.2:n label=\"{via,gproc,%n}\" source=gproc\n";

static struct label_rules rules;
static bool rules_ready;

static void add_builtin(void)
{
	if (rules_ready)
		return;
	rules_ready = true;
	char err[256];
	if (label_rules_parse(builtin, "built-in", &rules, err, sizeof err) < 0)
		abort();  /* the built-in text is wrong: a build defect, caught by the unit test */
}

const struct label_rules *label_rules(void)
{
	add_builtin();
	return &rules;
}

const char *label_default_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(buf, len, "%s/beamcore/labels", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.config/beamcore/labels", home);
	else
		return NULL;
	return buf;
}

int label_rules_load(const char *path, bool must_exist, char *err, size_t errlen)
{
	add_builtin();
	char *text;
	size_t n;
	int errnum;
	bc_err *e = read_text_file(path, NULL, 1u << 24, &text, &n, &errnum);
	if (e) {
		/* the default file is optional: absent, or behind a directory this
		 * user cannot search (sudo -u with HOME=/root); one that is there
		 * but unreadable is an error */
		struct stat st;
		bool absent = !must_exist && (errnum == ENOENT || errnum == ENOTDIR ||
					      (errnum == EACCES && stat(path, &st) < 0));
		if (!absent)
			snprintf(err, errlen, "%s", e->msg);
		bc_err_free(e);
		return absent ? 1 : -1;
	}
	int r = label_rules_parse(text, path, &rules, err, errlen);  /* (it keeps a copy) */
	free(text);
	return r < 0 ? -1 : 0;
}

/* One token of a line at *p: a bare word, a 'quoted atom' or a "quoted
 * text"; NUL-terminated in place (quotes removed). NULL at the line's end;
 * *bad on an unclosed quote. */
static char *token(char **p, bool *bad)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#') {
		*p = s;
		return NULL;
	}
	char *start = s, *w = s;
	char q = 0;
	for (; *s && (q || (*s != ' ' && *s != '\t')); s++) {
		if (!q && (*s == '\'' || *s == '"')) {
			q = *s;
			continue;
		}
		if (q && *s == q) {
			q = 0;
			continue;
		}
		if (q && *s == '\\' && s[1])
			s++;
		*w++ = *s;
	}
	if (q) {
		*bad = true;
		return NULL;
	}
	if (*s)
		s++;
	*w = '\0';
	*p = s;
	return start;
}

static int parse_pos(const char *s, struct label_pos *pos)
{
	pos->n = 0;
	while (*s) {
		char *e;
		long v = strtol(s, &e, 10);
		if (e == s || v < 1 || v > 255 || pos->n == LABEL_MAX_DEPTH || (*e && *e != '.') ||
		    (*e == '.' && !e[1]))
			return -1;
		pos->ix[pos->n++] = (uint8_t)v;
		s = *e ? e + 1 : e;
	}
	return pos->n ? 0 : -1;
}

/* One line's rule: 0 a rule, 1 blank, -1 wrong (err says why). */
static int parse_line(char *line, struct label_rule *r, char *err, size_t errlen)
{
	bool bad = false;
	char *p = line, *kind = token(&p, &bad);
	if (!kind) {
		if (bad)
			snprintf(err, errlen, "an unclosed quote");
		return bad ? -1 : 1;
	}
	memset(r, 0, sizeof *r);
	if (!strcmp(kind, "dict")) {
		r->kind = LABEL_DICT;
	} else if (!strcmp(kind, "registry")) {
		r->kind = LABEL_REGISTRY;
	} else if (!strcmp(kind, "ets")) {
		r->kind = LABEL_ETS;
	} else {
		snprintf(err, errlen, "'%.40s' is not a kind of rule (dict, registry or ets)", kind);
		return -1;
	}
	if (!(r->what = token(&p, &bad)) || !*r->what) {
		snprintf(err, errlen, bad ? "an unclosed quote" : "%s: what does it read? (%s)", kind,
			 r->kind == LABEL_DICT ? "a dictionary key" :
			 r->kind == LABEL_REGISTRY ? "a module" : "a table's name");
		return -1;
	}
	for (char *t; (t = token(&p, &bad));) {
		char *eq = strchr(t, '=');
		if (!eq) {
			snprintf(err, errlen, "'%.40s': options are NAME=VALUE", t);
			return -1;
		}
		*eq = '\0';
		const char *v = eq + 1;
		int ok = 0;
		if (!strcmp(t, "pid"))
			ok = parse_pos(v, &r->pid) == 0;
		else if (!strcmp(t, "name"))
			ok = parse_pos(v, &r->name) == 0;
		else if (!strcmp(t, "where")) {
			char *colon = strchr(eq + 1, ':');
			if (colon) {
				*colon = '\0';
				r->where_atom = colon + 1;
				ok = parse_pos(v, &r->where) == 0 && *r->where_atom;
			}
		} else if (!strcmp(t, "arity")) {
			char *e;
			long a = strtol(v, &e, 10);
			ok = e != v && !*e && a >= 1 && a <= 255;
			r->arity = (unsigned)a;
		} else if (!strcmp(t, "label")) {
			r->format = v;
			ok = *v != '\0';
		} else if (!strcmp(t, "as")) {
			ok = !strcmp(v, "erlang") || !strcmp(v, "elixir") || !strcmp(v, "auto");
			r->syntax = !strcmp(v, "erlang") ? LABEL_ERLANG : !strcmp(v, "elixir") ?
				    LABEL_ELIXIR : LABEL_AUTO;
		} else if (!strcmp(t, "source")) {
			r->source = v;
			ok = *v != '\0';
		} else {
			snprintf(err, errlen, "'%.40s' is not an option (pid, name, arity, where, "
				 "label, as, source)", t);
			return -1;
		}
		if (!ok) {
			snprintf(err, errlen, "%s=%.40s: %s", t, v,
				 !strcmp(t, "as") ? "erlang, elixir or auto" :
				 !strcmp(t, "where") ? "POS:ATOM (2.1:n)" :
				 !strcmp(t, "arity") ? "1 to 255" :
				 !strcmp(t, "label") || !strcmp(t, "source") ? "empty" :
				 "positions are 1-based indexes, nested with dots (2.1), 4 deep at most");
			return -1;
		}
	}
	if (bad) {
		snprintf(err, errlen, "an unclosed quote");
		return -1;
	}
	if (r->kind == LABEL_DICT && (r->pid.n || r->name.n || r->where.n || r->arity)) {
		snprintf(err, errlen, "dict: the value is the name (no pid=, name=, where=, arity=)");
		return -1;
	}
	if (r->kind != LABEL_DICT && (!r->pid.n || !r->name.n)) {
		snprintf(err, errlen, "%s: pid=POS and name=POS say where a row holds them", kind);
		return -1;
	}
	if (!r->source)
		r->source = r->kind == LABEL_DICT ? r->what : kind;
	return 0;
}

/* Back to the first n rules (a file that failed adds none). */
static void drop_after(struct label_rules *r, size_t n)
{
	while (r->n > n)
		free((char *)r->rule[--r->n].origin);
}

void label_rules_free(struct label_rules *r)
{
	drop_after(r, 0);
	for (size_t i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
	free(r->texts);
	free(r->rule);
	memset(r, 0, sizeof *r);
}

int label_rules_parse(const char *text, const char *origin, struct label_rules *out, char *err,
		      size_t errlen)
{
	char *copy = strdup(text);  /* the rules point into it: kept in out->texts */
	char **texts = copy ? realloc(out->texts, (out->ntexts + 1) * sizeof *texts) : NULL;
	if (!texts) {
		free(copy);
		snprintf(err, errlen, "%s: out of memory", origin);
		return -1;
	}
	out->texts = texts;
	size_t lineno = 0, added = 0, n0 = out->n;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		size_t k = strlen(line);
		if (k && line[k - 1] == '\r')
			line[k - 1] = '\0';
		struct label_rule r;
		char why[200];
		int rc = parse_line(line, &r, why, sizeof why);
		if (rc > 0)
			continue;
		if (rc < 0) {
			snprintf(err, errlen, "%s:%zu: %s", origin, lineno, why);
			drop_after(out, n0);
			free(copy);
			return -1;
		}
		char *where = malloc(strlen(origin) + 24);
		struct label_rule *a = realloc(out->rule, (out->n + 1) * sizeof *a);
		if (!where || !a) {
			free(where);
			if (a)
				out->rule = a;
			snprintf(err, errlen, "%s: out of memory", origin);
			drop_after(out, n0);
			free(copy);
			return -1;
		}
		sprintf(where, "%s:%zu", origin, lineno);
		r.origin = where;
		out->rule = a;
		out->rule[out->n++] = r;
		added++;
	}
	if (added)
		out->texts[out->ntexts++] = copy;
	else
		free(copy);
	return 0;
}

const struct vt *label_at(const struct vt *t, const struct label_pos *pos)
{
	for (uint8_t i = 0; t && i < pos->n; i++) {
		if (t->kind != VT_TUPLE || pos->ix[i] > t->n)
			return NULL;
		t = t->elems[pos->ix[i] - 1];
	}
	return t;
}

bool label_row_matches(const struct label_rule *r, const struct vt *row)
{
	if (!row || row->kind != VT_TUPLE || (r->arity && row->n != r->arity))
		return false;
	if (!r->where.n)
		return true;
	const struct vt *w = label_at(row, &r->where);
	return w && w->kind == VT_ATOM && w->text && !strcmp(w->text, r->where_atom);
}

bool label_is_elixir(const char *atom)
{
	return atom && !strncmp(atom, "Elixir.", 7);
}

/* An atom's text as a term of the label's syntax. */
static void put_atom(const char *a, bool elixir, char *buf, size_t len)
{
	struct vt t = { .kind = VT_ATOM, .text = a ? a : "?" };
	static const struct vt_limits lim = { 1, 1, 1 };
	if (elixir)
		vt_print_elixir(&t, &lim, buf, len);
	else
		vt_print(&t, &lim, buf, len);
}

const char *label_text(const struct label_rule *r, const struct vt *name, const char *table,
		       const char *parent, bool elixir_hint, char *buf, size_t len)
{
	static const struct vt_limits lim = { 8, 32, 200 };
	bool elixir = r->syntax == LABEL_ELIXIR ||
		      (r->syntax == LABEL_AUTO && (elixir_hint || label_is_elixir(r->what)));
	char n[512];
	if (elixir)
		vt_print_elixir(name, &lim, n, sizeof n);
	else
		vt_print(name, &lim, n, sizeof n);
	if (!r->format) {
		snprintf(buf, len, "%s", n);
		return buf;
	}
	size_t o = 0;
	if (len)
		buf[0] = '\0';
	for (const char *f = r->format; *f && o + 1 < len; f++) {
		char piece[512];
		const char *add = piece;
		if (*f != '%' || !f[1]) {
			piece[0] = *f;
			piece[1] = '\0';
		} else {
			switch (*++f) {
			case 'n': add = n; break;
			case 't': put_atom(table, elixir, piece, sizeof piece); break;
			case 'p':  /* an ancestor: a registered name, or a pid as printed */
				if (parent && parent[0] == '<')
					add = parent;
				else
					put_atom(parent, elixir, piece, sizeof piece);
				break;
			default: piece[0] = *f; piece[1] = '\0'; break;  /* %% and the unknown */
			}
		}
		size_t k = strlen(add);
		if (k > len - 1 - o)
			k = len - 1 - o;
		memcpy(buf + o, add, k);
		o += k;
		buf[o] = '\0';
	}
	return buf;
}
