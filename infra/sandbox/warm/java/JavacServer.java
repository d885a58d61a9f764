import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * A long-lived javac: compiles one program per request through javax.tools in this JVM, so the
 * JVM's start, javac's class loading and JIT warm-up, and the reading of the platform's and the
 * classpath's class files are paid once instead of once per program (what `javac` per program pays).
 *
 * Protocol (stdin/stdout, one request and one answer per line, tab-separated, no JSON library
 * needed): request  `id TAB source-path TAB output-dir`; answer `id TAB 0|1 TAB diagnostics`
 * where 0 is a successful compile, 1 a compile error, and the diagnostics are escaped (\\, \n, \t).
 * The options are MultiPL-E's (`javac -encoding UTF8 -d DIR` with javatuples on CLASSPATH), plus
 * `-proc:none`: no annotation processor runs (javatuples ships none, so the outcome is the same;
 * it keeps class path contents from running code in the compiler).
 *
 * Concurrency: N worker threads (argument 2), each with a file manager of its own (file managers
 * are not thread-safe); the file manager caches the jars and the platform's modules, which is most
 * of what a warm compile saves.
 */
public final class JavacServer {
  private static String escape(String text) {
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "");
  }

  public static void main(String[] args) throws Exception {
    String classpath = args[0];
    int workers = Integer.parseInt(args[1]);
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    BlockingQueue<StandardJavaFileManager> managers = new ArrayBlockingQueue<>(workers);
    for (int i = 0; i < workers; i++) managers.add(compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8));
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    out.println("ready");
    String line;
    while ((line = in.readLine()) != null) {
      final String[] parts = line.split("\t", -1);
      if (parts.length != 3) {
        synchronized (out) { out.println("?\t2\t" + escape("bad request: " + line)); }
        continue;
      }
      pool.submit(() -> {
        String answer;
        StandardJavaFileManager manager = null;
        try {
          manager = managers.take();
          DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
          StringWriter messages = new StringWriter();
          List<String> options = new ArrayList<>(List.of("-encoding", "UTF8", "-proc:none", "-d", parts[2], "-classpath", classpath));
          Iterable<? extends JavaFileObject> units = manager.getJavaFileObjects(new File(parts[1]));
          boolean ok = compiler.getTask(messages, manager, diagnostics, options, null, units).call();
          StringBuilder text = new StringBuilder(messages.toString());
          diagnostics.getDiagnostics().forEach(d -> text.append(d.toString()).append('\n'));
          answer = parts[0] + "\t" + (ok ? "0" : "1") + "\t" + escape(text.toString());
        } catch (Throwable error) {
          // A crash of the compiler on one program is that program's compile error, not the server's.
          answer = parts[0] + "\t1\t" + escape("javac crashed: " + error);
        } finally {
          if (manager != null) managers.add(manager);
        }
        synchronized (out) { out.println(answer); }
      });
    }
    pool.shutdown();
  }
}
