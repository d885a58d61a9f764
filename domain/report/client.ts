/**
 * The report page's own script (plain browser JavaScript, inlined after Chart.js): builds each chart
 * from the JSON specs html.ts embeds, switches the cost scatter's axes, opens the drill-down a link
 * points to, and filters tasks. Kept small: the numbers are all computed before rendering.
 */
export const REPORT_CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var dataEl = document.getElementById('report-data');
  var data = JSON.parse(dataEl ? dataEl.textContent : '{"charts":[]}');
  var built = {};
  window.__exploraCharts = built;

  function pct(v) {
    var p = v * 100;
    return (Math.abs(p - Math.round(p)) < 1e-9 ? Math.round(p) : p.toFixed(1)) + '%';
  }
  function num(v) {
    if (typeof v !== 'number') return String(v);
    if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
    return Math.abs(v - Math.round(v)) < 1e-9 ? String(Math.round(v)) : v.toFixed(2);
  }
  function axis(a, label) {
    var o = {
      type: a.type || 'linear',
      title: { display: true, text: label, font: { size: 13, weight: 'bold' } },
      stacked: !!a.stacked,
      grid: { color: 'rgba(0,0,0,0.08)' },
      ticks: {}
    };
    if (a.min !== undefined) o.min = a.min;
    if (a.max !== undefined) o.max = a.max;
    if (a.percent) o.ticks.callback = function (v) { return pct(Number(v)); };
    if (a.type === 'logarithmic') {
      o.ticks.callback = function (v) {
        var x = Number(v), e = Math.pow(10, Math.floor(Math.log10(x))), m = Math.round(x / e);
        return (m === 1 || m === 2 || m === 5) && Math.abs(x - m * e) < 1e-9 ? num(x) : '';
      };
    }
    if (a.integer) o.ticks.precision = 0;
    return o;
  }
  function datasetsOf(list) {
    return list.map(function (d) {
      return {
        label: d.label,
        data: d.data,
        borderColor: d.color,
        backgroundColor: d.fill || d.color,
        borderDash: d.dashed ? [6, 4] : [],
        borderWidth: d.borderWidth || 2,
        pointStyle: d.pointStyle || 'circle',
        pointRadius: d.pointRadius === undefined ? 3 : d.pointRadius,
        pointHoverRadius: (d.pointRadius === undefined ? 3 : d.pointRadius) + 2,
        showLine: d.showLine === undefined ? undefined : d.showLine,
        band: d.band,
        bandColor: d.band ? (/^#[0-9a-fA-F]{6}$/.test(d.color) ? d.color + '29' : 'rgba(0,0,0,0.12)') : undefined,
        spanGaps: false,
        tension: 0,
        clip: 8
      };
    });
  }
  function legendLabels(s) {
    // Lines as short strokes (dashed where the line is), points as their marker, bars as boxes.
    if (s.type === 'scatter') return { usePointStyle: true, font: { size: 12 } };
    if (s.type === 'line') return { boxWidth: 30, boxHeight: 3, font: { size: 12 } };
    return { boxWidth: 18, font: { size: 12 } };
  }
  // A dataset's 95% interval (d.band: [{x, low, high}]) as a translucent band behind the lines, or
  // as a bar where there is one point; hidden with its line.
  var bandPlugin = {
    id: 'exploraBands',
    beforeDatasetsDraw: function (chart) {
      var ctx = chart.ctx, xs = chart.scales.x, ys = chart.scales.y, area = chart.chartArea;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      chart.data.datasets.forEach(function (d, i) {
        if (!d.band || !chart.isDatasetVisible(i)) return;
        var pts = d.band.filter(function (b) { return b.low !== null && b.high !== null; });
        if (!pts.length) return;
        var x = function (b) { return xs.getPixelForValue(b.x); };
        ctx.beginPath();
        pts.forEach(function (b, j) { if (j) ctx.lineTo(x(b), ys.getPixelForValue(b.high)); else ctx.moveTo(x(b), ys.getPixelForValue(b.high)); });
        for (var j = pts.length - 1; j >= 0; j--) ctx.lineTo(x(pts[j]), ys.getPixelForValue(pts[j].low));
        ctx.closePath();
        if (pts.length > 1) {
          ctx.fillStyle = d.bandColor;
          ctx.fill();
        } else {
          ctx.lineWidth = 6;
          ctx.strokeStyle = d.bandColor;
          ctx.stroke();
        }
      });
      ctx.restore();
    }
  };
  function configOf(s) {
    var valueAxis = s.indexAxis === 'y' ? s.x : s.y;
    return {
      type: s.type,
      data: { labels: s.labels, datasets: datasetsOf(s.datasets) },
      plugins: [bandPlugin],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: s.indexAxis || 'x',
        interaction: s.type === 'scatter' ? { mode: 'nearest', intersect: true } : { mode: 'nearest', intersect: false, axis: s.indexAxis === 'y' ? 'y' : 'x' },
        plugins: {
          title: { display: true, text: s.title, font: { size: 15, weight: 'bold' } },
          legend: { display: true, position: 'bottom', labels: legendLabels(s) },
          tooltip: {
            callbacks: {
              label: function (ctx) {
                var p = ctx.parsed;
                var v = s.indexAxis === 'y' ? p.x : p.y;
                var shown = valueAxis.percent ? pct(v) : num(v);
                if (s.type === 'scatter') return ctx.dataset.label + ': ' + num(p.x) + ' → ' + shown;
                var b = ctx.dataset.band && ctx.dataset.band[ctx.dataIndex];
                if (b && b.low !== null && b.high !== null) shown += ' (95% ' + pct(b.low) + '–' + pct(b.high) + ')';
                return ctx.dataset.label + ': ' + shown;
              }
            }
          }
        },
        scales: { x: axis(s.x, s.xLabel), y: axis(s.y, s.yLabel) }
      }
    };
  }
  function fail(canvas, message) {
    var box = canvas.parentNode;
    var p = document.createElement('p');
    p.className = 'chart-error';
    p.textContent = message;
    box.appendChild(p);
  }

  (data.charts || []).forEach(function (spec) {
    var canvas = document.getElementById(spec.id);
    if (!canvas) return;
    if (typeof window.Chart !== 'function') return fail(canvas, 'Chart.js did not load: the chart cannot be drawn.');
    try {
      built[spec.id] = new window.Chart(canvas, configOf(spec));
    } catch (err) {
      fail(canvas, 'This chart failed to draw: ' + (err && err.message));
    }
  });

  // The cost scatter: switch cost metric and k.
  Array.prototype.forEach.call(document.querySelectorAll('.scatter-controls'), function (box) {
    var id = box.getAttribute('data-chart');
    var spec = (data.charts || []).filter(function (c) { return c.id === id; })[0];
    if (!spec || !spec.variants) return;
    function update() {
      var metric = box.querySelector('select[name=metric]').value;
      var k = box.querySelector('select[name=k]').value;
      var v = spec.variants[metric + '|' + k];
      var chart = built[id];
      if (!v || !chart) return;
      chart.data.datasets = datasetsOf(v.datasets);
      chart.options.scales.x.title.text = v.xLabel;
      chart.options.scales.y.title.text = v.yLabel;
      chart.options.plugins.title.text = v.title;
      chart.update();
    }
    Array.prototype.forEach.call(box.querySelectorAll('select'), function (sel) { sel.addEventListener('change', update); });
  });

  // A link to a task or sample opens it (and what contains it).
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    for (var p = el; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    el.scrollIntoView({ block: 'start' });
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();

  Array.prototype.forEach.call(document.querySelectorAll('button[data-expand]'), function (b) {
    b.addEventListener('click', function () {
      var task = document.getElementById(b.getAttribute('data-expand'));
      if (!task) return;
      var items = task.querySelectorAll('details.sample');
      var open = !Array.prototype.every.call(items, function (d) { return d.open; });
      Array.prototype.forEach.call(items, function (d) { d.open = open; });
      b.textContent = open ? 'collapse all samples' : 'expand all samples';
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('input.task-filter'), function (input) {
    var list = document.getElementById(input.getAttribute('data-list'));
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(list.querySelectorAll('details.task'), function (d) {
        d.hidden = q !== '' && d.getAttribute('data-task').toLowerCase().indexOf(q) < 0;
      });
    });
  });
})();
`;
