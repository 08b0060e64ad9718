package io.connectrs.host.scan;

import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.util.Locale;

/** Kafka Connect's plugin types ({@code PluginType}), in Kafka's order. */
public enum PluginKind {
    SOURCE(SourceConnector.class, true),
    SINK(SinkConnector.class, true),
    CONVERTER(Converter.class, true),
    HEADER_CONVERTER(HeaderConverter.class, true),
    TRANSFORMATION(Transformation.class, true),
    PREDICATE(Predicate.class, true),
    CONFIGPROVIDER(ConfigProvider.class, false),
    REST_EXTENSION(ConnectRestExtension.class, false),
    CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY(ConnectorClientConfigOverridePolicy.class, false);

    /** The interface or superclass the plugins of this type extend. */
    public final Class<?> superClass;
    /** Whether the reflective scan finds this type (the others only through manifests). */
    public final boolean reflective;

    PluginKind(Class<?> superClass, boolean reflective) {
        this.superClass = superClass;
        this.reflective = reflective;
    }

    /** Kafka's REST/log name: the lower-case constant ({@code header_converter}, {@code configprovider}). */
    public String typeName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The simple name of the superclass ({@code SourceConnector}, {@code Converter}, ...). */
    public String simpleName() {
        return superClass.getSimpleName();
    }

    /** Parses a type name ({@code config_provider} accepted for {@code configprovider}). */
    public static PluginKind parse(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT);
        if (n.equals("CONFIG_PROVIDER")) {
            return CONFIGPROVIDER;
        }
        try {
            return valueOf(n);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown plugin type '" + name + "'. Valid types are "
                    + java.util.Arrays.toString(values()).toLowerCase(Locale.ROOT));
        }
    }
}
