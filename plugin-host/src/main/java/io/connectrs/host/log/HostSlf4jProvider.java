package io.connectrs.host.log;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J 2 binding of the plugin host: plugins log through the slf4j-api on the host's class
 * path (Kafka keeps {@code org.slf4j} out of plugin isolation), and every event becomes one
 * {@link LogLine} on the host's stderr, which connect-rs logs at the event's level. Chosen with
 * the {@code slf4j.provider} system property ({@link io.connectrs.host.Main} sets it).
 */
public final class HostSlf4jProvider implements SLF4JServiceProvider {
    private final ILoggerFactory loggers = new HostLoggerFactory();
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {}
}
