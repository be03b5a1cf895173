/* The files under the paths triage was given (walk.h). */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"

static int add(struct inputs *in, const char *path, const char *error)
{
	struct input *v = grow(in->v, &in->cap, in->n, sizeof *v, 256);
	if (!v)
		return -1;
	in->v = v;
	v[in->n].path = strdup(path);
	v[in->n].error = error ? strdup(error) : NULL;
	if (!v[in->n].path || (error && !v[in->n].error)) {
		free(v[in->n].path);
		free(v[in->n].error);
		return -1;
	}
	in->n++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

static int walk_dir(struct inputs *in, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, skip_dots, by_name);
	if (n < 0)
		return add(in, dir, strerror(errno));
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char *sub = NULL;
		size_t k = strlen(dir);
		if (rc == 0 && asprintf(&sub, "%s%s%s", dir, k && dir[k - 1] == '/' ? "" : "/",
					names[i]->d_name) < 0)
			rc = -1;
		struct stat st;
		if (rc == 0) {
			if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				rc = walk_dir(in, sub);
			else if (!(lstat(sub, &st) == 0 && S_ISLNK(st.st_mode) && stat(sub, &st) == 0 &&
				   S_ISDIR(st.st_mode)))
				rc = add(in, sub, NULL);
		}
		free(sub);
		free(names[i]);
	}
	free(names);
	return rc;
}

int walk_add(struct inputs *in, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return walk_dir(in, path);
	return add(in, path, NULL);  /* absent or unreadable: said when opened */
}

void walk_free(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free(in->v[i].path);
		free(in->v[i].error);
	}
	free(in->v);
	memset(in, 0, sizeof *in);
}
