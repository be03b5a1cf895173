/* XML text for the JUnit files beamcore writes (check --junit, triage --junit). */
#ifndef BEAMCORE_RENDER_XML_H
#define BEAMCORE_RENDER_XML_H
#include <stdio.h>

/* Text as XML character data or an attribute value: markup escaped; bytes
 * that are no valid UTF-8, and control characters XML 1.0 forbids, as \xNN. */
void xml_put(FILE *f, const char *s);
void xml_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
