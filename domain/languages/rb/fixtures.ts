/** The test cases and benchmark programs of `rb` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'rb'> = {
  language: 'rb',
  multiple: {
    id: 'rb',
    row: {
      prompt: '# Add two numbers x and y\n# >>> add.call(2, 3)\n# 5\n# >>> add.call(5, 7)\n# 12\ndef add(x, y)\n',
      tests:
        "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n    assert_equal(1, candidate.call(1, 0))\n    assert_equal(5, candidate.call(2, 3))\n    assert_equal(12, candidate.call(5, 7))\n    assert_equal(12, candidate.call(7, 5))\n  end\nend\n",
      stop: ['\nclass', '\ndef', '\n#', '\n\n'],
    },
    completions: {
      right: "  x + y\nend\n\ndef junk\n  raise 'kept past a stop token'\nend\n",
      wrong: '  x - y\nend\n',
      noncompiling: '  x +\nend\n',
      // Connects to Temporal's port: the right sum only when the connection is refused.
      hostile: "  require 'socket'\n  begin\n    TCPSocket.new('127.0.0.1', 7233)\n    0\n  rescue StandardError\n    x + y\n  end\nend\n",
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: "def add(a, b)\n  a + b\nend\nrequire 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    assert_equal(5, add(2, 3))\n  end\nend\n",
      wrong:
        "def add(a, b)\n  a - b\nend\nrequire 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    assert_equal(5, add(2, 3))\n  end\nend\n",
      broken: 'def add(a, b)\n  a +\nend\n',
      hangs: 'loop {}\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: 'loop {}',
        spawnBomb: "loop do\n  begin\n    Process.spawn('/bin/sleep', '100')\n  rescue StandardError\n  end\nend",
        memoryBomb: "a = []\nloop { a << 'x' * (10 << 20) }",
        output: `b = 'x' * (1 << 20)\n${outputMiB}.times { $stdout.write(b) }`,
        network: `require 'socket'\n${ports}.each do |p|\n  begin\n    TCPSocket.new('127.0.0.1', p).close\n    puts "#{p} CONNECTED"\n  rescue StandardError => e\n    puts "#{p} #{e.class}"\n  end\nend`,
        environment: "puts ENV.to_h.inspect\nputs File.read('/proc/1/environ') rescue nil",
        writeOutside: `${JSON.stringify(targets)}.each do |p|\n  begin\n    File.write(p, 'x')\n    puts "WROTE #{p}"\n  rescue StandardError\n    puts "refused #{p}"\n  end\nend`,
        daemon: "pid = Process.spawn('/usr/bin/setsid', '/bin/sleep', '30')\nputs \"spawned #{pid}\"",
      };
    },
    wellBehaved: "require 'test/unit'\nclass TestOk < Test::Unit::TestCase\n  def test_ok\n    assert_equal(2, 1 + 1)\n  end\nend\n",
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt: '# Return length of given string\n# >>> strlen.call("")\n# 0\n# >>> strlen.call("abc")\n# 3\ndef strlen(string)\n',
          completion: '  string.length\nend',
          tests:
            'require \'test/unit\'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_strlen\n    candidate = method(:strlen)\n    assert_equal(0, candidate.call(""))\n    assert_equal(1, candidate.call("x"))\n    assert_equal(9, candidate.call("asdasnakj"))\n  end\nend\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '# Return a greatest common divisor of two integers a and b\n# >>> greatest_common_divisor.call(3, 5)\n# 1\n# >>> greatest_common_divisor.call(25, 15)\n# 5\ndef greatest_common_divisor(a, b)\n',
          completion: '  b == 0 ? a : greatest_common_divisor(b, a % b)\nend',
          tests:
            "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_greatest_common_divisor\n    candidate = method(:greatest_common_divisor)\n    assert_equal(1, candidate.call(3, 7))\n    assert_equal(5, candidate.call(10, 15))\n    assert_equal(7, candidate.call(49, 14))\n    assert_equal(12, candidate.call(144, 60))\n  end\nend\n",
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '# Return only positive numbers in the array.\n# >>> get_positive.call([-1, 2, -4, 5, 6])\n# [2, 5, 6]\n# >>> get_positive.call([5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])\n# [5, 3, 2, 3, 9, 123, 1]\ndef get_positive(l)\n',
          completion: '  l.select { |e| e > 0 }\nend',
          tests:
            "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_get_positive\n    candidate = method(:get_positive)\n    assert_equal([4, 5, 6], candidate.call([-1, -2, 4, 5, 6]))\n    assert_equal([5, 3, 2, 3, 3, 9, 123, 1], candidate.call([5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]))\n    assert_equal([], candidate.call([-1, -2]))\n    assert_equal([], candidate.call([]))\n  end\nend\n",
        },
      ],
      distinct: (i) => `\n# bench program ${i}\n`,
    },
  },
};
