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
 * and update its metrics as under Kafka Connect; connect-rs does not export them yet, which the first
 * call logs as a warning.
 */
final class HostPluginMetrics {
    private static final Metrics METRICS = new Metrics();
    private static final Logger LOG = LoggerFactory.getLogger(HostPluginMetrics.class);

    private final String who;
    private final Map<String, String> tags;
    private PluginMetricsImpl impl;

    private HostPluginMetrics(String who, Map<String, String> tags) {
        this.who = who;
        this.tags = tags;
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
            LOG.warn("{} registers plugin metrics (pluginMetrics()); connect-rs does not export them yet", who);
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
