package io.connectrs.host.scan;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The head of a {@code .class} file: access flags, name, superclass and interfaces, read from the
 * constant pool without loading the class (what ClassGraph reads for Kafka's reflective scan).
 */
final class ClassHeader {
    static final int ACC_PUBLIC = 0x0001;
    static final int ACC_INTERFACE = 0x0200;
    static final int ACC_ABSTRACT = 0x0400;
    static final int ACC_ANNOTATION = 0x2000;
    static final int ACC_MODULE = 0x8000;

    final int access;
    final String name;
    final String superName;
    final List<String> interfaces;

    private ClassHeader(int access, String name, String superName, List<String> interfaces) {
        this.access = access;
        this.name = name;
        this.superName = superName;
        this.interfaces = interfaces;
    }

    boolean isPublic() {
        return (access & ACC_PUBLIC) != 0;
    }

    /** A class ClassGraph's {@code getStandardClasses} keeps: not an interface, annotation or module. */
    boolean isStandardClass() {
        return (access & (ACC_INTERFACE | ACC_ANNOTATION | ACC_MODULE)) == 0;
    }

    /** Reads the header; names are binary names with dots ({@code a.b.C$D}). */
    static ClassHeader read(InputStream raw) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file (bad magic)");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] classIndex = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1: utf8[i] = in.readUTF(); break;
                case 7: classIndex[i] = in.readUnsignedShort(); break;
                case 8: case 16: case 19: case 20: in.readUnsignedShort(); break;
                case 15: in.readUnsignedByte(); in.readUnsignedShort(); break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: in.readInt(); break;
                case 5: case 6: in.readLong(); i++; break;
                default: throw new IOException("bad constant pool tag " + tag);
            }
        }
        int access = in.readUnsignedShort();
        String name = className(utf8, classIndex, in.readUnsignedShort());
        int superIdx = in.readUnsignedShort();
        String superName = superIdx == 0 ? null : className(utf8, classIndex, superIdx);
        int n = in.readUnsignedShort();
        List<String> interfaces = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            interfaces.add(className(utf8, classIndex, in.readUnsignedShort()));
        }
        return new ClassHeader(access, name, superName, interfaces);
    }

    private static String className(String[] utf8, int[] classIndex, int idx) throws IOException {
        if (idx <= 0 || idx >= classIndex.length || utf8[classIndex[idx]] == null) {
            throw new IOException("bad class reference " + idx);
        }
        return utf8[classIndex[idx]].replace('/', '.');
    }
}
