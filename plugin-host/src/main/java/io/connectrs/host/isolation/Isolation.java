package io.connectrs.host.isolation;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which class names a plugin's own loader loads first (Kafka Connect's
 * {@code PluginUtils.shouldLoadInIsolation}): everything except the Java platform, a fixed list of
 * {@code javax.*} packages, {@code org.apache.kafka.*} and {@code org.slf4j.*} — but Kafka's own
 * plugins under {@code org.apache.kafka} (transforms, json, file, mirror, converters, ...) are
 * isolated again. The package lists are data, in Kafka's order.
 */
public final class Isolation {
    private Isolation() {
    }

    /** Package prefixes (regex fragments) never loaded in isolation. */
    public static final List<String> EXCLUDED_PACKAGES = List.of(
            "java",
            "javax\\.accessibility", "javax\\.activation", "javax\\.activity", "javax\\.annotation",
            "javax\\.batch\\.api", "javax\\.batch\\.operations", "javax\\.batch\\.runtime",
            "javax\\.crypto", "javax\\.decorator", "javax\\.ejb", "javax\\.el",
            "javax\\.enterprise\\.concurrent", "javax\\.enterprise\\.context",
            "javax\\.enterprise\\.context\\.spi", "javax\\.enterprise\\.deploy\\.model",
            "javax\\.enterprise\\.deploy\\.shared", "javax\\.enterprise\\.deploy\\.spi",
            "javax\\.enterprise\\.event", "javax\\.enterprise\\.inject",
            "javax\\.enterprise\\.inject\\.spi", "javax\\.enterprise\\.util", "javax\\.faces",
            "javax\\.imageio", "javax\\.inject", "javax\\.interceptor", "javax\\.jms", "javax\\.json",
            "javax\\.jws", "javax\\.lang\\.model", "javax\\.mail", "javax\\.management",
            "javax\\.management\\.j2ee", "javax\\.naming", "javax\\.net", "javax\\.persistence",
            "javax\\.print", "javax\\.resource", "javax\\.rmi", "javax\\.script",
            "javax\\.security\\.auth", "javax\\.security\\.auth\\.message", "javax\\.security\\.cert",
            "javax\\.security\\.jacc", "javax\\.security\\.sasl", "javax\\.servlet",
            "javax\\.sound\\.midi", "javax\\.sound\\.sampled", "javax\\.sql", "javax\\.swing",
            "javax\\.tools", "javax\\.transaction", "javax\\.validation", "javax\\.websocket",
            "javax\\.ws\\.rs", "javax\\.xml", "javax\\.xml\\.bind", "javax\\.xml\\.registry",
            "javax\\.xml\\.rpc", "javax\\.xml\\.soap", "javax\\.xml\\.ws",
            "org\\.ietf\\.jgss",
            "org\\.omg\\.CORBA", "org\\.omg\\.CosNaming", "org\\.omg\\.Dynamic", "org\\.omg\\.DynamicAny",
            "org\\.omg\\.IOP", "org\\.omg\\.Messaging", "org\\.omg\\.PortableInterceptor",
            "org\\.omg\\.PortableServer", "org\\.omg\\.SendingContext", "org\\.omg\\.stub\\.java\\.rmi",
            "org\\.w3c\\.dom", "org\\.xml\\.sax",
            "org\\.apache\\.kafka",
            "org\\.slf4j");

    /** Names under {@code org.apache.kafka.connect.} isolated again (regex alternatives). */
    public static final List<String> INCLUDED_CONNECT = List.of(
            "transforms\\.(?!Transformation|predicates\\.Predicate$).*",
            "json\\..*",
            "file\\..*",
            "mirror\\..*",
            "mirror-client\\..*",
            "converters\\..*",
            "storage\\.StringConverter",
            "storage\\.SimpleHeaderConverter",
            "rest\\.basic\\.auth\\.extension\\.BasicAuthSecurityRestExtension",
            "connector\\.policy\\.(?!ConnectorClientConfig(?:OverridePolicy|Request(?:\\$ClientType)?)$).*");

    /** Names under {@code org.apache.kafka.common.config.provider.} isolated again. */
    public static final String INCLUDED_CONFIG_PROVIDERS = "(?!ConfigProvider$).*";

    private static final Pattern EXCLUDE =
            Pattern.compile("^(?:" + String.join("|", EXCLUDED_PACKAGES) + ")\\..*$");

    private static final Pattern INCLUDE = Pattern.compile("^org\\.apache\\.kafka\\.(?:connect\\.(?:"
            + String.join("|", INCLUDED_CONNECT) + ")"
            + "|common\\.config\\.provider\\." + INCLUDED_CONFIG_PROVIDERS + ")$");

    /** Whether {@code name} is loaded by the plugin's own loader before its parent. */
    public static boolean shouldLoadInIsolation(String name) {
        return !(EXCLUDE.matcher(name).matches() && !INCLUDE.matcher(name).matches());
    }
}
