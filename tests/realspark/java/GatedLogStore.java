package deltaforensics.harness;

import io.delta.storage.HDFSLogStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Delta's own HDFS log store, held at a gate before a transaction's first commit attempt.
 *
 * The test harness names the JVM thread that runs the losing statement "gate:DIR/TOKEN". When
 * that thread first writes a commit file, the store creates DIR/TOKEN.reached and waits until
 * DIR/TOKEN.release exists: the statement has read its snapshot and done all its work, and the
 * harness now commits the winners. Released, the write goes on; if a winner took the version,
 * Delta's own conflict checker decides the loser's fate, exactly as in a real race. Every other
 * thread and every later write passes straight through.
 */
public class GatedLogStore extends HDFSLogStore {
    private static final Set<String> PASSED = ConcurrentHashMap.newKeySet();
    // the winner runs meanwhile: minutes on a loaded machine
    private static final long TIMEOUT_MS = 900_000L;
    /** A harness that holds many statements at once on a busy machine may wait longer. */
    private static final String TIMEOUT_PROPERTY = "deltaforensics.gate.timeoutMs";

    public GatedLogStore(Configuration hadoopConf) {
        super(hadoopConf);
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        String name = Thread.currentThread().getName();
        if (name.startsWith("gate:") && path.getName().matches("\\d{20}\\.json")
                && PASSED.add(name)) {
            String token = name.substring("gate:".length());
            Files.write(Paths.get(token + ".reached"), path.getName().getBytes());
            long deadline = System.currentTimeMillis() + Long.getLong(TIMEOUT_PROPERTY, TIMEOUT_MS);
            while (!Files.exists(Paths.get(token + ".release"))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("harness gate never released: " + token);
                }
                try {
                    Thread.sleep(5L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted at the harness gate", e);
                }
            }
        }
        super.write(path, actions, overwrite, hadoopConf);
    }
}
