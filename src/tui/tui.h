/* beamcore tui TARGET [BEAM]: an ncurses browser over the analyzers. */
#ifndef BEAMCORE_TUI_H
#define BEAMCORE_TUI_H
#include "target.h"

/* Loads the target, runs the browser until q; returns the exit code. */
int tui_main(const struct target_opts *o, double interval);

#endif
