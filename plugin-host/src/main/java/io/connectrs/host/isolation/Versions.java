package io.connectrs.host.isolation;

import java.util.ArrayList;
import java.util.List;

/**
 * Orders plugin versions close to Maven's {@code ComparableVersion} for the common shapes
 * ({@code 1.2.3}, {@code 1.2.3-SNAPSHOT}, {@code 3.6.1.Final}): items split on {@code .} and
 * {@code -} and at digit/letter changes, numbers compared as numbers and above words, a
 * missing item as 0; qualifiers {@code alpha < beta < milestone < rc < snapshot < "" (release)
 * < sp}, other words after them, alphabetically. Maven version ranges are resolved on the Rust
 * side; the host only needs "latest".
 */
public final class Versions {
    private Versions() {
    }

    private static final List<String> QUALIFIERS =
            List.of("alpha", "beta", "milestone", "rc", "snapshot", "", "sp");

    /** Compares two version strings. */
    public static int compare(String a, String b) {
        List<Object> x = items(a);
        List<Object> y = items(b);
        int n = Math.max(x.size(), y.size());
        for (int i = 0; i < n; i++) {
            Object p = i < x.size() ? x.get(i) : null;
            Object q = i < y.size() ? y.get(i) : null;
            int c = compareItem(p, q);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int compareItem(Object p, Object q) {
        if (p == null && q == null) {
            return 0;
        }
        if (p == null) {
            return -compareItem(q, null);
        }
        if (p instanceof Long) {
            if (q == null) {
                return Long.compare((Long) p, 0L);
            }
            if (q instanceof Long) {
                return Long.compare((Long) p, (Long) q);
            }
            return 1; // a number is above a word
        }
        String s = (String) p;
        if (q == null) {
            return Integer.compare(rank(s), QUALIFIERS.indexOf(""));
        }
        if (q instanceof Long) {
            return -1;
        }
        String t = (String) q;
        int c = Integer.compare(rank(s), rank(t));
        return c != 0 ? c : s.compareTo(t);
    }

    private static int rank(String word) {
        String w = word.toLowerCase(java.util.Locale.ROOT);
        switch (w) {
            case "a": w = "alpha"; break;
            case "b": w = "beta"; break;
            case "m": w = "milestone"; break;
            case "cr": w = "rc"; break;
            case "ga": case "final": case "release": w = ""; break;
            default: break;
        }
        int i = QUALIFIERS.indexOf(w);
        return i >= 0 ? i : QUALIFIERS.size();
    }

    private static List<Object> items(String v) {
        List<Object> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        Boolean digits = null;
        for (int i = 0; i <= v.length(); i++) {
            char c = i < v.length() ? v.charAt(i) : '.';
            boolean sep = c == '.' || c == '-' || c == '_';
            boolean d = Character.isDigit(c);
            if (sep || (digits != null && cur.length() > 0 && d != digits)) {
                if (cur.length() > 0) {
                    String s = cur.toString();
                    out.add(digits ? (Object) parse(s) : s.toLowerCase(java.util.Locale.ROOT));
                }
                cur.setLength(0);
                digits = null;
                if (sep) {
                    continue;
                }
            }
            cur.append(c);
            digits = d;
        }
        // trailing zeros and release qualifiers do not count (1.0 == 1 == 1.0.0.Final)
        while (!out.isEmpty()) {
            Object last = out.get(out.size() - 1);
            if ((last instanceof Long && (Long) last == 0L)
                    || (last instanceof String && rank((String) last) == QUALIFIERS.indexOf(""))) {
                out.remove(out.size() - 1);
            } else {
                break;
            }
        }
        return out;
    }

    private static Long parse(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
