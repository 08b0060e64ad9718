package io.connectrs.host.run;

import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code pluginMetrics()} of a connector's or task's context (KIP-877): made on the first call,
 * with Kafka Connect's tags ({@code connector}, and {@code task} for a task), in one metrics registry
 * of the plugin host, and closed (its metrics removed) when the instance stops. A plugin can register
 * and update its metrics as under Kafka Connect; {@code PLUGIN_METRICS} gives connect-rs their current
 * values, which its {@code GET /metrics} serves.
 */
public final class HostPluginMetrics {
    private static final Metrics METRICS = new Metrics();
    private static final Logger LOG = LoggerFactory.getLogger(HostPluginMetrics.class);

    private final String who;
    private final Map<String, String> tags;
    private PluginMetricsImpl impl;

    private HostPluginMetrics(String who, Map<String, String> tags) {
        this.who = who;
        this.tags = tags;
    }

    /** Registers the {@code PLUGIN_METRICS} handler. */
    public static void register() {
        io.connectrs.host.Handlers.register(io.connectrs.host.wire.MessageType.PLUGIN_METRICS,
            payload -> io.connectrs.host.json.Json.write(snapshot())
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Each numeric metric of group {@code plugins}: its name, tags and current value. */
    static java.util.List<Object> snapshot() {
        java.util.List<Object> out = new java.util.ArrayList<>();
        for (Map.Entry<org.apache.kafka.common.MetricName, org.apache.kafka.common.metrics.KafkaMetric> e
                : METRICS.metrics().entrySet()) {
            if (!"plugins".equals(e.getKey().group())) {
                continue;
            }
            Object value;
            try {
                value = e.getValue().metricValue();
            } catch (RuntimeException ex) {
                continue;
            }
            if (!(value instanceof Number) || !Double.isFinite(((Number) value).doubleValue())) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.getKey().name());
            m.put("tags", new LinkedHashMap<>(e.getKey().tags()));
            m.put("value", ((Number) value).doubleValue());
            out.add(m);
        }
        return out;
    }

    /** The metrics of connector {@code name}. */
    static HostPluginMetrics ofConnector(String name) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("connector", name);
        return new HostPluginMetrics("connector " + name, tags);
    }

    /** The metrics of task {@code id} ({@code <connector>-<task>}). */
    static HostPluginMetrics ofTask(String id) {
        int dash = id.lastIndexOf('-');
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("connector", dash < 0 ? id : id.substring(0, dash));
        tags.put("task", dash < 0 ? "0" : id.substring(dash + 1));
        return new HostPluginMetrics("task " + id, tags);
    }

    /** The plugin's {@code PluginMetrics}, made on the first call. */
    synchronized PluginMetrics get() {
        if (impl == null) {
            impl = new PluginMetricsImpl(METRICS, tags);
        }
        return impl;
    }

    /** Removes the plugin's metrics. */
    synchronized void close() {
        if (impl != null) {
            try {
                impl.close();
            } catch (java.io.IOException e) {
                LOG.debug("closing the plugin metrics of {}", who, e);
            }
            impl = null;
        }
    }
}
