package io.durablecheckout.orchestrator.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of the jar's subcommands ({@code replay}, {@code export}, {@code create-admin-key}): {@code --name},
 * {@code --name=value} or {@code --name value}; anything else is refused with a message naming it.
 */
public final class CommandLineOptions {

    private CommandLineOptions() {
    }

    /**
     * The options after {@code args[0]} (the subcommand): {@code flags} take no value (they read as {@code "true"}),
     * {@code valued} take one; an option given twice is refused.
     */
    public static Map<String, String> parse(String[] args, List<String> flags, List<String> valued) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flags.contains(name)) {
                value = "true";
            } else if (!valued.contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name);
            } else if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                value = args[++i];
            }
            if (options.put(name, value) != null) {
                throw new IllegalArgumentException("--" + name + " given twice");
            }
        }
        return options;
    }
}
