package io.connectrs.host.wire.codec;

import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;

/**
 * The sender's table of one kind of definition: definition body bytes to id (so equal schemas get one
 * id whichever object carries them, exactly as connect-rs assigns them), plus a cache by object identity.
 */
final class Interner {
    /** Identity-cache entries kept before the cache is forgotten (it only saves work). */
    static final int IDENTITY_CACHE_MAX = 4 * Tags.MAX_INTERNED;

    private static final class Key {
        final byte[] bytes;
        final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && Arrays.equals(bytes, ((Key) o).bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** One generation, set aside by a reset until the item is complete. */
    static final class Generation {
        final HashMap<Key, Integer> byBody;
        final IdentityHashMap<Object, Integer> byIdentity;

        Generation(HashMap<Key, Integer> byBody, IdentityHashMap<Object, Integer> byIdentity) {
            this.byBody = byBody;
            this.byIdentity = byIdentity;
        }
    }

    private final String kind;
    private final int defTag;
    /** The next id to give (unsigned 32-bit). */
    private long next = 1;
    private HashMap<Key, Integer> byBody = new HashMap<>();
    private IdentityHashMap<Object, Integer> byIdentity = new IdentityHashMap<>();

    Interner(String kind, int defTag) {
        this.kind = kind;
        this.defTag = defTag;
    }

    int size() {
        return byBody.size();
    }

    long mark() {
        return next;
    }

    Integer cached(Object o) {
        return byIdentity.get(o);
    }

    void remember(Object o, int id) {
        if (byIdentity.size() >= IDENTITY_CACHE_MAX) {
            byIdentity.clear();
        }
        byIdentity.put(o, id);
    }

    /** The id of a definition body; a new one is written to {@code defs} first. */
    int intern(Buf body, Buf defs) {
        Key key = new Key(body.toByteArray());
        Integer id = byBody.get(key);
        if (id != null) {
            return id;
        }
        if (next > 0xFFFFFFFFL) {
            throw new org.apache.kafka.connect.errors.DataException(kind + " ids exhausted on this connection");
        }
        int newId = (int) next;
        next++;
        defs.put(defTag);
        defs.putU32(newId);
        defs.put(key.bytes, 0, key.bytes.length);
        byBody.put(key, newId);
        return newId;
    }

    Generation reset() {
        Generation g = new Generation(byBody, byIdentity);
        byBody = new HashMap<>();
        byIdentity = new IdentityHashMap<>();
        return g;
    }

    /** Forgets every id given since {@code mark}; with {@code beforeReset}, also undoes that reset. */
    void rollback(long mark, Generation beforeReset) {
        next = mark;
        if (beforeReset != null) {
            byBody = beforeReset.byBody;
            byIdentity = beforeReset.byIdentity;
        } else {
            byBody.values().removeIf(id -> (id & 0xFFFFFFFFL) >= mark);
            byIdentity.values().removeIf(id -> (id & 0xFFFFFFFFL) >= mark);
        }
    }
}
