package io.connectrs.host.scan;

import io.connectrs.host.json.Json;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * Test driver (tests/plugin_host/scan.rs): reads a JSON array of {@code {"op","request"}} from the
 * file named by the first argument, runs each through {@link ScanService} in one JVM (so
 * {@code config_keys}/{@code validate} see the preceding {@code scan}) and prints one line per
 * op: {@code {"ok":ANSWER}} or {@code {"error":"Class: message"}}.
 */
public final class ScanMain {
    private ScanMain() {
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        String text = new String(Files.readAllBytes(Paths.get(args[0])), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (Object o : (List<Object>) Json.parse(text)) {
            Map<String, Object> op = (Map<String, Object>) o;
            String request = Json.write(op.get("request"));
            try {
                String answer;
                switch ((String) op.get("op")) {
                    case "scan": answer = ScanService.scan(request); break;
                    case "config_keys": answer = ScanService.configKeys(request); break;
                    case "validate": answer = ScanService.validate(request); break;
                    case "isolated":
                        answer = String.valueOf(io.connectrs.host.isolation.Isolation.shouldLoadInIsolation(
                                (String) ((Map<String, Object>) op.get("request")).get("name")));
                        break;
                    default: throw new IllegalArgumentException("unknown op " + op.get("op"));
                }
                out.append("{\"ok\":").append(answer).append("}\n");
            } catch (Exception e) {
                out.append(Json.write(Map.of("error", e.getClass().getSimpleName() + ": " + e.getMessage())))
                        .append('\n');
            }
        }
        System.out.print(out);
        System.out.flush();
    }
}
