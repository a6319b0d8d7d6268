/* Command-line helpers shared by the doors (see flags.h). */
#include "cmd/flags.h"

#include <string.h>

#include "admission/registry.h"

const char *kg_flag_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    *matched = false;
    if (strncmp(arg, name, n))
        return NULL;
    if (arg[n] == '=') {
        *matched = true;
        return arg + n + 1;
    }
    if (arg[n] == 0) {
        *matched = true;
        if (*i + 1 < argc) {
            (*i)++;
            return argv[*i];
        }
        return NULL;
    }
    return NULL;
}

bool kg_flag_parse_bool(const char *v, bool *out)
{
    if (!v || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "t") || !strcmp(v, "TRUE") || !strcmp(v, "True"))
        *out = true;
    else if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "f") || !strcmp(v, "FALSE") || !strcmp(v, "False"))
        *out = false;
    else
        return false;
    return true;
}

kg_flag_result kg_flags_engine(int argc, char **argv, int *i, kg_admission_options *adm, const char **feature_gates)
{
    static const char *const names[] = {"--enable-admission-plugins", "--disable-admission-plugins",
                                        "--admission-control-config-file", "--admission-control", "--feature-gates"};
    const char **fields[] = {&adm->enable_plugins, &adm->disable_plugins, &adm->config_file, &adm->admission_control,
                             feature_gates};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        bool m;
        const char *v = kg_flag_value(argc, argv, i, names[k], &m);
        if (!m)
            continue;
        if (!v) {
            fprintf(stderr, "Error: flag needs an argument: %s\n", names[k]);
            return KG_FLAG_ERROR;
        }
        *fields[k] = v;
        return KG_FLAG_MATCHED;
    }
    return KG_FLAG_NOMATCH;
}

/* One wrapped list of plugin names, those for which want(p) holds. */
static void plugin_list(FILE *f, bool (*want)(const kg_admission_plugin_info *p))
{
    size_t col = 8;
    bool first = true;
    fprintf(f, "        ");
    for (size_t i = 0; i < kg_admission_registry_count(); i++) {
        const kg_admission_plugin_info *p = kg_admission_registry_at(i);
        if (!want(p))
            continue;
        size_t n = strlen(p->name);
        if (!first) { /* the comma ends the line; a wrapped name starts the next one */
            fputc(',', f);
            col++;
            if (col + 1 + n > 118) {
                fprintf(f, "\n        ");
                col = 8;
            } else {
                fputc(' ', f);
                col++;
            }
        }
        fprintf(f, "%s", p->name);
        first = false;
        col += n;
    }
    fprintf(f, "\n");
}

static bool any_plugin(const kg_admission_plugin_info *p)
{
    return p != NULL;
}
static bool default_on(const kg_admission_plugin_info *p)
{
    return p->default_on;
}
static bool unimplemented(const kg_admission_plugin_info *p)
{
    return !p->impl;
}

void kg_flags_admission_plugins_usage(FILE *f)
{
    fprintf(f, "      Admission plugins, in execution order:\n");
    plugin_list(f, any_plugin);
    fprintf(f, "      Enabled by default:\n");
    plugin_list(f, default_on);
    bool any_unimplemented = false;
    for (size_t i = 0; i < kg_admission_registry_count(); i++)
        any_unimplemented = any_unimplemented || unimplemented(kg_admission_registry_at(i));
    if (!any_unimplemented) /* every v1.33 plugin is implemented */
        return;
    fprintf(f, "      Not implemented yet in kgate (skipped when default-enabled; naming them in a flag is an "
               "error):\n");
    plugin_list(f, unimplemented);
}

void kg_flags_engine_usage(FILE *f)
{
    fprintf(f, "Admission flags (as kgate serve and kube-apiserver):\n"
               "      --admission-control-config-file string   File with admission control configuration.\n"
               "      --disable-admission-plugins strings      admission plugins that should be disabled although "
               "they are in the default enabled plugins list.\n"
               "      --enable-admission-plugins strings       admission plugins that should be enabled in addition "
               "to default enabled ones.\n\n");
    kg_flags_admission_plugins_usage(f);
    fprintf(f, "\nFeature gates:\n"
               "      --feature-gates mapStringBool     A set of key=value pairs that describe feature gates, e.g.\n"
               "                                        PodTopologyLabelsAdmission=true (v1.33 defaults otherwise)\n");
}
