"""A second correct answer per question of benchmarks/data/authored_science.json.

Written and labelled by the rubricjudge developers (MIT, like the project). Each is
correct and complete, in a student's voice: working laid out step by step, the key
wording buried in a longer answer, misspellings, or a misconception named only to
reject it (so the penalty is absent). They are where a judge under-credits, and the
correct answers on which false penalties are measured.
"""

from __future__ import annotations

from _science_src import A

EXTRA = {
    "ramp_speed": A(
        "informal",
        "MMMU",
        "First I wrote down what I know: m = 2 kg, h = 5 m, starts at rest. I used conservation of mechanical "
        "energy, so the PE at the top equals the KE at the bottom: mgh = 1/2mv^2. The mass cancels, so "
        "v = root(2gh) = root(98) = 9.9 m/s. There is no friction on the ramp so no energy is wasted as heat.",
    ),
    "drop_two_balls": A(
        "informal",
        "MMMU",
        "I used to think the heavy one would win but nope, they land together. g is 9.8 for everything. the 5 kg "
        "one has more weight pulling it down but its also got more mass to get moving, so it ends up "
        "accelerating exactly the same",
    ),
    "constant_velocity_push": A(
        "informal",
        "MMMU",
        "Because the speed isnt changing, Newtons 1st law says theres no resultant force. So the friction must "
        "be 40 N as well, acting in the oposite direction to the push.",
    ),
    "braking_distance": A(
        "informal",
        "MMMU",
        "Its four times further so 80m. KE = 1/2 m v^2 so doubling v gives 4x the energy, and brake force x "
        "stopping distance has to equal all that energy. People think it would be 40 m but thats wrong.",
    ),
    "series_bulb_added": A(
        "informal",
        "MMMU",
        "Adding the 2nd bulb makes it harder for current to get round (the resistence goes up), so the current "
        "drops - and its the same current everywhere in a series loop, so bulb 1 goes dimmer. it doesnt 'use "
        "up' current",
        "It gets dimmer",
    ),
    "parallel_bulb_breaks": A(
        "informal",
        "MMMU",
        "Bulb 2 is still on. In parallel each bulb has got its own circut going back to the battery, and it "
        "still gets the full voltage of the battery across it. Breaking one branch doesnt affect the other one.",
    ),
    "ohms_law_current": A(
        "informal",
        "MMM",
        "R = 4 ohm, V = 12 V. V = I x R so I = 12 / 4 = 3 amperes.",
    ),
    "sticky_collision": A(
        "informal",
        "MMMU",
        "Momentun before = momentum after (its conserved). 2x3 + 1x0 = 6, then 6 = (2+1)v so v = 2 m/s. This is "
        "an inelastic collision so the KE isnt conserved - some of it turns into sound and heat when they crunch "
        "together.",
    ),
    "table_roll_off": A(
        "informal",
        "MMMU",
        "Both land at once!! Vertically they're identical - both start with 0 downward velocity and speed up at "
        "9.8 m/s^2 - the sideways speed is totally seperate and doesnt change the falling at all.",
    ),
    "string_released": A(
        "informal",
        "MMMU",
        "The tension in the string was the centripetal force pulling it in towards the middle. Once it snaps "
        "theres nothing pulling it any more, so the ball carrys on in a straight line in whatever direction it "
        "was going at that instant - along the tangent, NOT straight outwards.",
    ),
    "truck_car_collision": A(
        "informal",
        "MMMU",
        "Equal! Newton 3: the truck pushes the car exactly as hard as the car pushes the truck. But a = F/m, and "
        "the car's mass is way smaller, so it gets a much bigger acceleration, which is why it crumples more.",
        "Neither: the forces are equal",
    ),
    "steel_ship_floats": A(
        "informal",
        "MMMU",
        "It's all about the shape. The hull is hollow and full of air so the average density of the whole ship "
        "is less than water's. It displaces a huge amount of water, and the upthrust equals the weight of the "
        "water displaced, which balances the ship's weight.",
    ),
    "sharp_knife": A(
        "informal",
        "MMMU",
        "Same force but the edge is super thin so the area touching is tiny. P = F/A, so a small A means a big "
        "P, and the big pressure is what slices through.",
    ),
    "spoon_feels_cold": A(
        "informal",
        "MMMU",
        "Theyre both at room temperature so they are the same temp really. Metals are good conductors of heat "
        "and wood is an insulator, so the metal takes the heat away from your hand faster and thats why it "
        "feels colder.",
    ),
    "sound_in_vacuum": A(
        "informal",
        "MMMU",
        "Sound waves are vibrations of particles so they need a medium. Once the air is gone theres no particles "
        "so the sound cant travel. Light dosent need a medium and goes through a vacuum fine, which is why you "
        "can still see the clock.",
    ),
    "straw_looks_bent": A(
        "informal",
        "MMMU",
        "Refraction. Light travels slower in water than in air, so when the light from the bottom of the straw "
        "comes out of the water it changes direction. Your brain assumes the light came in a straight line, so "
        "you see the bottom part in a different place from where it really is.",
    ),
    "seasons_cause": A(
        "informal",
        "MMMU",
        "its NOT because we're closer to the sun (we are actually closest in january!). its the tilt of the "
        "earths axis. in summer the northern half tilts towards the sun so the sun is higher up and the light is "
        "more concentrated, and we get longer days.",
        "The tilt of Earth's axis",
    ),
    "moon_phases": A(
        "informal",
        "MMMU",
        "The sun always lights up one half of the moon. As the moon travels round the earth on its monthly orbit "
        "we see varying amounts of that lit half, which is the phases. Its nothing to do with the earth's shadow "
        "(thats an eclipse).",
        "Half of the Moon lit by the Sun, seen from different angles",
    ),
    "lifting_power": A(
        "informal",
        "MMM",
        "W = F x d = (50 x 9.8) x 2 = 980 J. P = W / t = 980 / 4 = 245 W",
    ),
    "spring_stretch": A(
        "informal",
        "MMMU",
        "F is proportional to extension (hookes law). k = F/x = 6/3 = 2 N per cm, so x = 10/2 = 5 cm.",
    ),
    "skydiver_terminal": A(
        "informal",
        "MMMU",
        "at first their weight is bigger than the drag so they speed up. the drag grows as they get faster until "
        "its equal to the weight. then the forces are balanced, resultant force = 0, so no acceleration and the "
        "speed stays constant",
        "Both",
    ),
    "lift_scale": A(
        "informal",
        "MMMU",
        "The scales read more than the person's weight. The lift is accelerating up so there has to be a net "
        "upward force on the person, so the push from the scales (the normal reaction) is bigger than their "
        "weight, and that push is what the scales actually measure. Their mass doesn't change at all.",
        "More than the weight",
    ),
    "wave_speed": A("informal", "MMMU", "v = f x wavelength -> 5 x 2 = 10 m/s"),
    "half_life": A(
        "informal",
        "MMMU",
        "15 / 5 = 3 half-lives. 80 -> 40 (5 days) -> 20 (10 days) -> 10 (15 days). So 10 g is left, and it never "
        "gets to exactly zero, it just keeps halving.",
    ),
    "balloon_wall": A(
        "informal",
        "MMMU",
        "Rubbing moves electrons from the wool onto the balloon (charge isnt created, just moved), so the balloon "
        "is negative. It repels the electrons in the wall away from the surface, leaving the surface positive, "
        "and opposites attract.",
    ),
    "beach_sand_water": A(
        "informal",
        "MMMU",
        "Water's specific heat capacity is several times bigger than sand's, so the same energy from the sun "
        "only warms the water up a little bit. The sea is also always moving, so the warm water at the top gets "
        "mixed in with the colder water underneath.",
    ),
    "ice_melting_temp": A(
        "informal",
        "MMMU",
        "The energy the ice takes in is latent heat. It goes into breaking the forces holding the molecules "
        "together in the ice, not into raising the temperature, so it stays at 0 C until its all melted.",
    ),
    "lightning_thunder": A(
        "informal",
        "MMMU",
        "Both are made at the same instant by the same strike. Light covers 300 000 km every second so it gets "
        "to you basically instantly, but sound only goes about 340 m/s so it lags behind.",
    ),
    "photosynthesis": A(
        "informal",
        "MMMU",
        "Plants need CO2 and H2O, plus sunlight which is trapped by chlorophyl in the chloroplasts. They make "
        "glucose and give off oxygen: 6CO2 + 6H2O -> C6H12O6 + 6O2.",
        "Both",
    ),
    "perfume_diffusion": A(
        "informal",
        "MMMU",
        "The perfume evaporates and the gas particles move about randomly, bumping into the air particles. Over "
        "time they spread out from high concentration (by the bottle) to low concentration (the back of the "
        "room). Thats diffusion, no wind needed.",
    ),
    "balance_water_equation": A(
        "informal",
        "MMMU",
        "2H2 + O2 -> 2H2O. Reactants: 4 H atoms, 2 O atoms. Products: 4 H atoms, 2 O atoms. Same on both sides "
        "so its balanced.",
    ),
    "rusting_nail": A(
        "informal",
        "MMMU",
        "Rusting needs oxygen and water (a nail in dry air or in boiled water with oil on top wont rust). Fe "
        "reacts with O2 to make iron oxide. The mass goes up because oxygen atoms have been added onto the iron.",
        "It increases",
    ),
    "neutralisation": A(
        "informal",
        "MMMU",
        "Neutralisation! acid + alkali -> salt + water, so HCl + NaOH -> NaCl + H2O. If the amounts are just "
        "right the solution is neutral, pH 7.",
    ),
    "salt_dissolves": A(
        "informal",
        "MMMU",
        "Mass is conserved so the solution weighs 100 + 10 = 110 g. The salt particles have spread out between "
        "the water particles - its still there, just dissolved.",
    ),
    "enzyme_hot": A(
        "informal",
        "MMMU",
        "High temperatures denature enzymes. The active site changes shape, so the substrate doesnt fit anymore, "
        "like a lock and key where the lock has been bent.",
    ),
    "antibiotic_resistance": A(
        "informal",
        "MMMU",
        "Natural selection. Theres variation: a random mutation means a few bacteria are resistant. The "
        "antibiotic kills the others but the resistant ones survive, then they reproduce and pass on the "
        "resistant gene, so the population ends up resistant. The bacteria don't choose to change.",
        "All three",
    ),
    "left_ventricle": A(
        "informal",
        "MMMU",
        "Left ventricle -> aorta -> whole body. Right ventricle -> pulmonary artery -> lungs only. Pumping round "
        "the whole body needs a much higher pressure so the left one needs a thicker muscular wall.",
    ),
    "water_cycle": A(
        "informal",
        "MMMU",
        "Evaporation: the sun heats the sea and water turns into vapour. Condensation: the vapour rises, cools "
        "down and forms droplets in clouds. Precipitation: the droplets join up and fall as rain, for example "
        "over a mountain where the air gets pushed up and cools.",
        "All three",
    ),
    "vaccination": A(
        "informal",
        "MMMU",
        "the vaccine has a dead or weakend version of the pathogen in it. your white blood cells respond by "
        "making antibodies. memory cells stay in your body, so if the real thing comes along they respond much "
        "quicker and stop you getting ill.",
        "Both",
    ),
    "food_chain_energy": A(
        "informal",
        "MMMU",
        "Energy isnt destroyed, its transferred. The rabbit uses most of its energy for respiration (lost as "
        "heat) and moving around, and some is in fur, bones and droppings the fox never gets, so only about 10% "
        "gets passed on.",
    ),
    "exercise_breathing": A(
        "informal",
        "MMMU",
        "Your muscles need more energy when you exercise and they get it from aerobic respiration, which uses "
        "oxygen. So you breathe faster and deeper to take in more oxygen and to get rid of the extra carbon "
        "dioxide.",
    ),
    "line_slope": A(
        "informal",
        "MMMU",
        "m = rise/run = (8 - 2)/(3 - 1) = 3. Put in x = 1, y = 2: 2 = 3 + c, so c = -1. So y = 3x - 1.",
    ),
    "two_dice_seven": A(
        "informal",
        "MMMU",
        "6x6 = 36 possible outcomes. Ways to get 7: 1&6, 2&5, 3&4, 4&3, 5&2, 6&1 = 6 ways. P(7) = 6/36 = 1/6",
        "1/6",
    ),
    "discount_then_rise": A(
        "informal",
        "MMMU",
        "80 x 0.8 = 64. 64 x 1.2 = 76.8. So 76.80 pounds. It isn't back to 80 because the 20% increase is worked "
        "out on 64, not on 80.",
        "76.80 pounds",
    ),
}
