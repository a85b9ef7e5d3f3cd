#include <sqlite3.h>
#include <glib.h>
