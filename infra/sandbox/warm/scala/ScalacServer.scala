import java.io._
import java.nio.charset.StandardCharsets.UTF_8
import scala.tools.nsc.{Global, Settings}
import scala.tools.nsc.reporters.ConsoleReporter

/**
 * A long-lived scalac: compiles one program per request in this JVM, so the JVM's start, the
 * compiler's class loading and its JIT warm-up are paid once instead of once per program (what
 * `scalac` per program pays: most of its seconds).
 *
 * Protocol (stdin/stdout, as the warm javac server's): request `id TAB source-path TAB
 * output-dir`; answer `id TAB 0|1 TAB diagnostics`, 0 a successful compile, 1 a compile error,
 * the diagnostics escaped (\\, \n, \t). The options are MultiPL-E's `scalac -d DIR FILE`; the
 * class path is this JVM's (-usejavacp), which the launcher sets to the jars the `scalac` script
 * puts on its own (the script passes -Dscala.usejavacp=true too).
 *
 * Each request gets a fresh compiler (Global): every program defines `object Problem`, and a
 * reused compiler would keep the previous one's symbols. Requests are served one at a time.
 */
object ScalacServer {
  private def escape(text: String): String =
    text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "")

  private def compile(source: String, outdir: String): (Boolean, String) = {
    val messages = new StringWriter()
    val writer = new PrintWriter(messages)
    val settings = new Settings(error => writer.println(error))
    settings.usejavacp.value = true
    settings.outdir.value = outdir
    val reporter = new ConsoleReporter(settings, new BufferedReader(new StringReader("")), writer)
    val global = new Global(settings, reporter)
    new global.Run().compile(List(source))
    reporter.printSummary()
    writer.flush()
    (!reporter.hasErrors, messages.toString)
  }

  def main(args: Array[String]): Unit = {
    val out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8")
    val in = new BufferedReader(new InputStreamReader(System.in, UTF_8))
    out.println("ready")
    var line = in.readLine()
    while (line != null) {
      val parts = line.split("\t", -1)
      val answer =
        if (parts.length != 3) "?\t2\t" + escape("bad request: " + line)
        else
          try {
            val (ok, text) = compile(parts(1), parts(2))
            parts(0) + "\t" + (if (ok) "0" else "1") + "\t" + escape(text)
          } catch {
            // A crash of the compiler on one program is that program's compile error, not the server's.
            case error: Throwable => parts(0) + "\t1\t" + escape("scalac crashed: " + error)
          }
      out.println(answer)
      line = in.readLine()
    }
  }
}
