package io.connectrs.host.log;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logger whose events are written as {@link LogLine}s. INFO and above are enabled (Kafka
 * Connect's default root level); DEBUG and TRACE cost nothing.
 */
final class HostLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    HostLogger(String name) {
        this.name = name;
    }

    @Override
    public boolean isTraceEnabled() {
        return false;
    }

    @Override
    public boolean isDebugEnabled() {
        return false;
    }

    @Override
    public boolean isInfoEnabled() {
        return true;
    }

    @Override
    public boolean isWarnEnabled() {
        return true;
    }

    @Override
    public boolean isErrorEnabled() {
        return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
            Throwable throwable) {
        LogLine.write(level.name(), name, MessageFormatter.basicArrayFormat(pattern, arguments), throwable);
    }
}
