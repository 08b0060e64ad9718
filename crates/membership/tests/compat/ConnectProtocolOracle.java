// Differential oracle for connect-membership's protocol.rs: Apache Kafka Connect's own
// ConnectProtocol / IncrementalCooperativeConnectProtocol serialize fixed cases ("serialize"),
// and deserialize bytes given on stdin ("decode": lines "KIND HEX"), printing a canonical
// description and Kafka Connect's re-serialization of what it read.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

import org.apache.kafka.connect.runtime.distributed.ConnectProtocol;
import org.apache.kafka.connect.runtime.distributed.ExtendedAssignment;
import org.apache.kafka.connect.runtime.distributed.ExtendedWorkerState;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeConnectProtocol;
import org.apache.kafka.connect.util.ConnectorTaskId;

public class ConnectProtocolOracle {
    static String hex(ByteBuffer b) {
        if (b == null) return "null";
        StringBuilder sb = new StringBuilder();
        ByteBuffer d = b.duplicate();
        while (d.hasRemaining()) sb.append(String.format("%02x", d.get()));
        return sb.toString();
    }

    static ByteBuffer unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++)
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return ByteBuffer.wrap(out);
    }

    static List<ConnectorTaskId> tasks(String... ids) {
        List<ConnectorTaskId> out = new ArrayList<>();
        for (String id : ids) {
            int dash = id.lastIndexOf('-');
            out.add(new ConnectorTaskId(id.substring(0, dash), Integer.parseInt(id.substring(dash + 1))));
        }
        return out;
    }

    static List<String> list(String... s) {
        return new ArrayList<>(List.of(s));
    }

    static String sorted(Collection<?> c) {
        List<String> s = new ArrayList<>();
        for (Object o : c) s.add(String.valueOf(o));
        Collections.sort(s);
        return "[" + String.join(",", s) + "]";
    }

    static String desc(ConnectProtocol.Assignment a) {
        if (a == null) return "none";
        short version = 0;
        String rc = "[]", rt = "[]";
        int delay = 0;
        if (a instanceof ExtendedAssignment) {
            ExtendedAssignment e = (ExtendedAssignment) a;
            version = e.version();
            rc = sorted(e.revokedConnectors());
            rt = sorted(e.revokedTasks());
            delay = e.delay();
        }
        return "v" + version + " e" + a.error() + " l=" + a.leader() + " u=" + a.leaderUrl()
            + " o=" + a.offset() + " c=" + sorted(a.connectors()) + " t=" + sorted(a.tasks())
            + " rc=" + rc + " rt=" + rt + " d=" + delay;
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("serialize")) {
            String url = "http://w1:8083/";
            System.out.println("md0 " + hex(ConnectProtocol.serializeMetadata(new ConnectProtocol.WorkerState(url, 42))));
            System.out.println("md1 " + hex(IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(url, 42, null), false)));
            ExtendedAssignment current = new ExtendedAssignment((short) 2, ConnectProtocol.Assignment.NO_ERROR,
                "leader-1", "http://l:8083/", 41, list("a"), tasks("a-0", "a-2"), list(), tasks(), 0);
            System.out.println("md2 " + hex(IncrementalCooperativeConnectProtocol.serializeMetadata(new ExtendedWorkerState(url, 42, current), true)));
            System.out.println("as0 " + hex(ConnectProtocol.serializeAssignment(new ConnectProtocol.Assignment(
                ConnectProtocol.Assignment.NO_ERROR, "leader-1", "http://l:8083/", 42, list("a", "b"), tasks("a-0", "a-1", "b-3")))));
            ExtendedAssignment inc = new ExtendedAssignment((short) 1, ConnectProtocol.Assignment.NO_ERROR,
                "leader-1", "http://l:8083/", 42, list("b"), tasks("a-1", "b-0"), list("a"), tasks("a-5"), 1500);
            System.out.println("as1 " + hex(IncrementalCooperativeConnectProtocol.serializeAssignment(inc, false)));
            System.out.println("as2 " + hex(IncrementalCooperativeConnectProtocol.serializeAssignment(inc, true)));
            ExtendedAssignment mismatch = new ExtendedAssignment((short) 1, ConnectProtocol.Assignment.CONFIG_MISMATCH,
                "leader-1", "http://l:8083/", 50, list(), tasks(), list(), tasks(), 0);
            System.out.println("mismatch " + hex(IncrementalCooperativeConnectProtocol.serializeAssignment(mismatch, false)));
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            String[] parts = line.trim().split(" ");
            String kind = parts[0];
            ByteBuffer bytes = unhex(parts[1]);
            short version = bytes.duplicate().getShort();
            switch (kind) {
                case "metadata0": {
                    ConnectProtocol.WorkerState s = ConnectProtocol.deserializeMetadata(bytes);
                    System.out.println("url=" + s.url() + " o=" + s.offset() + " reser=" + hex(ConnectProtocol.serializeMetadata(s)));
                    break;
                }
                case "metadata": {
                    ExtendedWorkerState s = IncrementalCooperativeConnectProtocol.deserializeMetadata(bytes);
                    ExtendedAssignment alloc = s.assignment();
                    String allocDesc = alloc == ExtendedAssignment.empty() ? "none" : desc(alloc);
                    System.out.println("url=" + s.url() + " o=" + s.offset() + " alloc=" + allocDesc
                        + " reser=" + hex(IncrementalCooperativeConnectProtocol.serializeMetadata(s, version >= 2)));
                    break;
                }
                case "assignment0": {
                    ConnectProtocol.Assignment a = ConnectProtocol.deserializeAssignment(bytes);
                    System.out.println(desc(a) + " reser=" + hex(ConnectProtocol.serializeAssignment(a)));
                    break;
                }
                default: {
                    ExtendedAssignment a = IncrementalCooperativeConnectProtocol.deserializeAssignment(bytes);
                    System.out.println(desc(a) + " reser=" + hex(IncrementalCooperativeConnectProtocol.serializeAssignment(a, version >= 2)));
                }
            }
        }
    }
}
